// gpupool-scale-bench's admission throughput (step 7): a burst of GPU pods
// at the quota gate, with the controller (and its webhook) running.
//
// The gate is on as deployed: the controller writes its admission objects
// (the mutating webhook that adds the scheduling gate gpupool.io/quota, the
// admission policy refusing ungated GPU pods) over every namespace a
// TenantQuota covers, here every tenant's; no GPUPolicy is needed (without
// one every namespace may ask). The bench removed those objects only while
// it seeded its bound pods (step 2); the controller wrote them again.
//
// The burst: `wanted` one-device pods (label app=bench-burst, no
// spec.nodeName: the scheduler places them once admitted), spread
// round-robin over the tenants so that each fits what its TenantQuota's
// status says is granted and not used, and its pool's status.capacity less
// what its tenants use (plan_burst); fewer when fewer fit. First a dry-run
// create is repeated until its answer carries the gate (the webhook this
// controller serves is configured). Then a watch on the burst's pods (from
// a list's resourceVersion, so none is missed) notes when each is first
// seen without the gate; the pods are created by `writers` threads; the
// figure is pods / (last gate removed - first create sent).
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "cluster_shape.h"
#include "gpupool/kube/client.h"

namespace gpupool::bench {

// The burst's default size: 2,000 at the default 5,000 nodes, in proportion
// to --nodes, at least 20.
std::size_t default_burst(std::size_t nodes);

// A whole-number quantity (a JSON integer or a string of digits); nullopt otherwise.
std::optional<long> whole_quantity(const rapidjson::Value* v);

struct TenantRoom {
  std::string ns;
  std::string pool;
  int room = 0;  // granted less used, in its pool's resource
};

// The tenant (index into `tenants`) of each burst pod: round-robin over the
// tenants, each at most its room, each pool at most `pool_room[pool]`, until
// `wanted` or nothing fits. Pure.
std::vector<std::size_t> plan_burst(const std::vector<TenantRoom>& tenants, std::map<std::string, long> pool_room,
                                    std::size_t wanted);

// A burst pod's manifest: one device of `resource`, in `ns`.
std::string burst_pod_manifest(const std::string& ns, const std::string& name, const std::string& resource);

struct AdmissionFigures {
  std::size_t wanted = 0;
  std::size_t pods = 0;      // created (what fitted)
  double create_s = 0;       // first create sent .. last create answered
  double admit_s = 0;        // first create sent .. last gate removed
  double per_second = 0;     // pods / admit_s
};

// Throws std::runtime_error when the gate is not in place within a minute,
// a pod arrives ungated, or the pods are not all admitted within `timeout`.
AdmissionFigures measure_admissions(kube::Client& client, const ClusterShape& shape, std::size_t wanted, int writers,
                                    std::chrono::seconds timeout);

}  // namespace gpupool::bench
