// Private to lib/node: one reconcile pass of the node agent (node_agent.h
// says what a pass does). Holds what the pass read and the status it builds.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "gpupool/api/gpunode.h"
#include "gpupool/node/node_agent.h"
#include "gpupool/node/node_labels.h"
#include "gpupool/node/node_plan.h"
#include "gpupool/node/telemetry_poller.h"

namespace gpupool::node {

struct AgentPass {
  AgentPass(kube::Client& c, kube::Client& ec, backend::GpuBackend& b, DriverInstaller& i, const gpu::Catalog& cat,
            const NodeAgentOptions& o, std::stop_token s)
      : client(c), eviction_client(ec), backend(b), installer(i), catalog(cat), options(o), stop(std::move(s)) {}

  kube::Client& client;
  kube::Client& eviction_client;
  backend::GpuBackend& backend;
  DriverInstaller& installer;
  const gpu::Catalog& catalog;
  const NodeAgentOptions& options;
  std::stop_token stop;

  std::vector<std::shared_ptr<const kube::Object>> pods;  // on this node
  std::vector<PodFacts> gpu_pods;                        // of those, the running GPU pods
  backend::Inventory inventory;
  std::string backend_error;                             // non-empty: the inventory could not be read
  std::shared_ptr<const kube::Object> gpunode;
  api::GPUNode object;                                   // the GPUNode, decoded
  api::GPUNodeStatus previous;                           // its status as read
  api::GPUNodeStatus status;                             // the status this pass writes
  std::shared_ptr<const kube::Object> node;              // the Node as the store had it
  DevicePluginWatch* plugin_watch = nullptr;  // NodeAgent's memory of a device plugin catching up
  PatchMemory* patch_memory = nullptr;        // NodeAgent's memory of the Node patches it sent

  void create_gpunode();
  // GPU health into status.gpus (gpu_health_tracker.h); when to judge again
  // (a cause stops counting then), if sooner than anything else.
  std::optional<std::chrono::milliseconds> judge_health(GpuHealthTracker& health, const TelemetrySnapshot* snapshot);
  void set_health_condition();
  runtime::Result carry_out();
  // Labels, advertised resources, the device plugin; when to look again if
  // the device plugin still has to catch up.
  std::optional<std::chrono::milliseconds> sync_node();
  void set_conditions();
  void write_status();

 private:
  enum class DrainState { drained, in_progress, failed };

  api::Time now() const;
  std::int64_t generation() const { return object.metadata.generation; }
  void set_op(api::OperationType type, api::OperationPhase phase, const std::string& reason, const std::string& message);
  bool failed_for_generation(const NodePlan& plan) const;
  void fail(const std::vector<api::OperationType>& types, const std::string& reason, const std::string& message);
  DrainState drain(const NodePlan& plan, runtime::Result& out);
  bool install_driver();
  bool apply_partitions(const NodePlan& plan);
  // Uncordons the Node this agent cordoned (kPreDrainUnschedulableAnnotation)
  // and ends the Drain operation once it has: true when the Node is known
  // released (or nothing of ours was held: no annotation on the Node read,
  // no Drain in progress). Reads the Node fresh unless this pass patched
  // it: the store's copy may be older than this agent's own cordon.
  bool finish_drain();
  // The status says this agent holds the Node cordoned (Drain InProgress).
  bool drain_held() const;
  // Patches the Node with what `make` builds from it (`sent`: the body);
  // on a conflict reads the Node afresh and tries once more, so a store
  // behind a busy Node costs one GET rather than a pass per retry.
  enum class NodeChange { done, unneeded, conflict };
  NodeChange change_node(const std::function<std::optional<std::string>(const rapidjson::Value&)>& make,
                         std::string* sent);
  const rapidjson::Value* node_json() const;
  void read_node();  // GET the Node into node_doc_
  void patch_node(const std::string& body, bool status_subresource);
  std::vector<api::OperationType> disruptive_types(const NodePlan& plan) const;
  std::optional<std::chrono::milliseconds> check_device_plugin(const LabelInputs& in);

  rapidjson::Document node_doc_;  // the Node after this pass's own patches or read
  bool node_patched_ = false;     // node_doc_ holds it (fresher than the store's)
  std::vector<api::OperationType> set_this_pass_;
};

}  // namespace gpupool::node
