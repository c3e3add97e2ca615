// How long a tenant's TenantQuota status takes to show a change of its pods
// (issue 16, "delay from a pod change to the tenant's usage in status"),
// measured while other writers churn pods.
//
// A probe deletes one of the seeded GPU pods (grace period 0, so the API
// server removes it at once) and waits until a watch on TenantQuotas
// (opened before the first probe) delivers its tenant's quota with
// status.used one device less; the delay runs from the delete's answer to
// that event's arrival. The delete's own time is kept beside it: what one
// write costs on the API server at that moment. Probes go one at a time
// over the tenants holding most devices first, each tenant's pods in turn,
// so no two probes wait on one status write. Meanwhile `churn_writers`
// threads create and delete pods that ask for no GPU (bound to nodes, in
// the tenants' namespaces), as fast as the API server lets them: events the
// controller's pod informer must take in without falling behind.
#pragma once

#include <chrono>
#include <cstddef>
#include <vector>

#include "cluster_shape.h"
#include "gpupool/kube/client.h"

namespace gpupool::bench {

// The pods the probes delete, in order: at most `count`, GPU pods only,
// tenant by tenant round-robin (the tenants with most devices first).
// Pure.
std::vector<std::size_t> probe_pods(const ClusterShape& shape, std::size_t count);

struct UsageLag {
  std::vector<double> lags_ms;    // one per probe, in probe order
  std::vector<double> delete_ms;  // each probe's delete, request to answer, same order
  double churn_events_per_s = 0;  // pod creations and deletions by the churn writers
  double p50_ms() const;
  double p99_ms() const;
  double delete_p50_ms() const;
  double delete_p99_ms() const;
};

// Runs the probes (probe_pods) with the churn running. `shape`'s usage is
// what the cluster holds now; the probed pods are gone afterwards. Throws
// std::runtime_error when a status does not show a probe within `timeout`.
UsageLag measure_usage_lag(kube::Client& client, const ClusterShape& shape, std::size_t probes, int churn_writers,
                           std::chrono::milliseconds timeout);

}  // namespace gpupool::bench
