// The node agent's reconciler: makes one node's GPUs match its GPUNode spec
// and reports them in its status. One key, the node; every pass starts from
// the truth (the backend's inventory, the Node, the pods on the node, the
// GPUNode) and never from memory, so an agent killed anywhere finishes the
// job after a restart.
//
// A pass:
// 1. Reads the inventory; creates the GPUNode (spec.nodeName only) if missing.
// 2. Plans (node_plan.h). A plan that cannot be applied fails the operation
//    (reason Unsatisfiable) and changes nothing.
// 3. Nothing disruptive to do: finishes a drain left over (uncordon, as the
//    pre-drain annotation says), marks operations done.
// 4. Disruptive work waits for spec.disruptionAllowed (operations Pending,
//    reason WaitingForDisruption), and an operation that failed for this spec
//    generation is not retried until the spec changes.
// 5. Drain: before the first cordon for a change, reads the GPUNode afresh
//    and cordons only if it still grants the generation planned from
//    (disruption_permission.h: the store's copy can predate a withdrawal);
//    cordon (recording whether the node was cordoned already), evict
//    GPU pods through the eviction API (drain_plan.h), honour
//    PodDisruptionBudgets (a 429 names the pod; retried), wait for skip-labelled
//    pods and for the GPU processes to end; past spec.drain.timeout the
//    operation fails naming the pods (reason DrainTimeout).
// 6. Driver: install, then validate (the new version loaded, every GPU answers).
// 7. Partitions: MIG mode, destroy, create, verify against the spec
//    (ResetRequired when the GPU refuses the reset a mode change needs).
// 8. Uncordon (unless an administrator had cordoned it), operations Succeeded.
// On failure the node stays cordoned when spec.cordonOnFailure, else it is
// uncordoned (when the agent cordoned it).
// Every pass also writes the node labels (GFD names, node_labels.h), the
// device plugin config label and, when the agent plays the device plugin
// (simulated backend), the extended resources in Node status, else restarts
// the device plugin's pod on this node when it does not re-advertise after a
// change (device_plugin_restart.h); and the
// GPUNode status when something changed or lastHeartbeatTime is older than
// `status_heartbeat`.
// GPU health (docs/api.md, "GPU health"): each pass, and each telemetry
// snapshot (observe_telemetry), judges every GPU by spec.health
// (pool/gpu_health.h, memory kept per GPU UUID) and writes
// status.gpus[].health, healthReasons and the Healthy condition; while the
// controller has taken the node out for health (its taint, or its cordon),
// the Unhealthy GPUs (with their MIG instances) are left out of the
// advertised resources. The agent never taints or cordons for health.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/backend/backend.h"
#include "gpupool/gpu/catalog.h"
#include "gpupool/kube/client.h"
#include "gpupool/kube/object.h"
#include "gpupool/node/driver_installer.h"
#include "gpupool/node/drain_plan.h"
#include "gpupool/node/node_patches.h"
#include "gpupool/node/telemetry_poller.h"
#include "gpupool/runtime/controller.h"
#include "gpupool/runtime/store.h"

namespace gpupool::node {

// What the agent remembers about a real device plugin that has not caught up
// (lost on restart: then it waits restart_after once more).
struct DevicePluginWatch {
  std::optional<std::chrono::system_clock::time_point> stale_since;  // capacity differs from the GPUs since
  std::string restarted;                                             // pods restarted while stale ("ns/name, ...")
};

struct NodeAgentOptions {
  std::string node_name;
  std::chrono::milliseconds inventory_interval{std::chrono::seconds(30)};  // re-read the GPUs this often
  std::chrono::milliseconds status_heartbeat{std::chrono::minutes(5)};     // longest gap between status writes
  std::chrono::milliseconds drain_poll{std::chrono::seconds(2)};           // re-check a drain in progress
  bool advertise_resources = false;   // write extended resources in Node status (simulated backend)
  // Otherwise a device plugin does: its pods on this node (device_plugin_restart.h)
  // are restarted when the capacity stays stale this long after a change.
  std::vector<std::string> device_plugin_selectors{"app.kubernetes.io/name=nvidia-device-plugin",
                                                   "app=nvidia-device-plugin-daemonset"};
  std::chrono::seconds device_plugin_restart_after{60};
  std::string field_manager = "gpupool-agent";
  // Told the GPU pods on the node before each inventory (the simulated
  // backend runs one process per pod).
  std::function<void(const std::vector<PodFacts>&)> on_gpu_pods;
  // The telemetry the health judgment reads (its latest snapshot); nullptr:
  // no measurements (with spec.health, GPUs stay Unknown).
  const TelemetryPoller* telemetry = nullptr;
};

class GpuHealthTracker;

class NodeAgent : public runtime::Reconciler {
 public:
  // `eviction_client` posts evictions without retrying a 429 itself (a
  // PodDisruptionBudget's refusal is reported, then retried by the agent).
  NodeAgent(kube::Client& client, kube::Client& eviction_client, backend::GpuBackend& backend,
            DriverInstaller& installer, runtime::Store<kube::Object>& gpunodes, runtime::Store<kube::Object>& nodes,
            runtime::Store<kube::Object>& pods, const gpu::Catalog& catalog, NodeAgentOptions options);
  ~NodeAgent() override;

  runtime::Result reconcile(const runtime::Request& request, std::stop_token stop) override;

  // Judges the GPUs with a new telemetry snapshot (called by the poller's
  // thread); true when their health differs from the GPUNode status as the
  // store has it, so a pass should run to write it.
  bool observe_telemetry(const TelemetrySnapshot& snapshot);

 private:
  struct Pass;
  kube::Client& client_;
  kube::Client& eviction_client_;
  backend::GpuBackend& backend_;
  DriverInstaller& installer_;
  runtime::Store<kube::Object>& gpunodes_;
  runtime::Store<kube::Object>& nodes_;
  runtime::Store<kube::Object>& pods_;
  const gpu::Catalog& catalog_;
  NodeAgentOptions options_;
  DevicePluginWatch plugin_watch_;
  PatchMemory patch_memory_;
  std::unique_ptr<GpuHealthTracker> health_;
};

}  // namespace gpupool::node
