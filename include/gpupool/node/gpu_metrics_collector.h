// The agent's GPU metrics (README, "GPU metrics"): on each telemetry snapshot
// (telemetry_poller.h) the families of exporter::gpu_families are built once,
// from the snapshot, the node's inventory, the GPUs' health and who holds each
// device (the kubelet's pod-resources API), and every scrape until the next
// snapshot reads those: a scrape never touches the GPUs or the kubelet, and
// memory holds one sample's families.
//
// Pod attribution is best effort: without a lister, or while the kubelet's
// socket cannot be reached, the families carry no pod labels; the first
// failure after a success (or at start) is logged once with the socket path
// and the gRPC status, and so is the recovery. Each holder's tenant comes
// from sources.tenants (the agent's: the namespace's gpupool.io/tenant label,
// else its name).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "gpupool/api/gpunode.h"
#include "gpupool/backend/backend.h"
#include "gpupool/exporter/gpu_families.h"
#include "gpupool/metrics/snapshot.h"
#include "gpupool/node/telemetry_poller.h"
#include "gpupool/podresources/attribution.h"
#include "gpupool/podresources/lister.h"

namespace gpupool::node {

struct GpuMetricsSources {
  // The node's GPUs as the agent last read them; nullopt before the first read.
  std::function<std::optional<backend::Inventory>()> inventory;
  // Each GPU's health as the agent judged it (by index); may be empty.
  std::function<std::map<int, api::GPUHealth>()> health;
  // Namespace -> tenant for the namespaces holding this node's devices
  // (holder_namespaces), called once per build that has pod attribution, on
  // the telemetry thread; must not throw. A namespace it leaves out (all,
  // when unset) is its own tenant. The agent's: NamespaceTenants
  // (namespace_tenants.h).
  std::function<std::map<std::string, std::string>(const std::set<std::string>& namespaces)> tenants;
  // Who holds each device; nullptr: no attribution.
  std::unique_ptr<podresources::PodResourcesLister> lister;
};

class GpuMetricsCollector {
 public:
  GpuMetricsCollector(std::string hostname, exporter::ExporterOptions options, GpuMetricsSources sources);

  // Builds the families from `snapshot` (subscribe it to the poller).
  void on_snapshot(const TelemetrySnapshot& snapshot);

  // The families built last; empty before the first snapshot.
  std::vector<metrics::FamilySnapshot> families() const;

  // Whether the last build had pod attribution.
  bool attributed() const { return attributed_.load(); }

 private:
  std::string hostname_;
  exporter::ExporterOptions options_;
  GpuMetricsSources sources_;
  mutable std::mutex mu_;
  std::shared_ptr<const std::vector<metrics::FamilySnapshot>> families_;
  std::atomic<bool> attributed_{false};
  std::optional<bool> lister_ok_;  // the last lister outcome, for logging transitions
};

// Each GPU's health as a GPUNode's status says (status.gpus[].health, by
// index); GPUs without one are left out.
std::map<int, api::GPUHealth> gpu_health_of(const rapidjson::Value& gpunode);

// The namespaces of the pods holding a GPU or MIG instance in `users`.
std::set<std::string> holder_namespaces(const podresources::Attribution& users);

// The exporter's view of the XIDs the poller counted.
std::map<int, exporter::XidTally> xid_tallies(const std::map<int, GpuXids>& xids);

}  // namespace gpupool::node
