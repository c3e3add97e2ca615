#include "gpupool/node/node_agent.h"

#include <spdlog/spdlog.h>

#include "gpupool/api/codec.h"
#include "gpupool/api/conditions.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/resource.h"
#include "gpupool/node/device_plugin_config.h"
#include "gpupool/node/node_labels.h"
#include "gpupool/node/node_patches.h"
#include "gpupool/node/node_plan.h"
#include "gpupool/node/observed_status.h"
#include "gpu_health_tracker.h"
#include "node_agent_pass.h"

namespace gpupool::node {

using runtime::Result;

NodeAgent::NodeAgent(kube::Client& client, kube::Client& eviction_client, backend::GpuBackend& backend,
                     DriverInstaller& installer, runtime::Store<kube::Object>& gpunodes,
                     runtime::Store<kube::Object>& nodes, runtime::Store<kube::Object>& pods,
                     const gpu::Catalog& catalog, NodeAgentOptions options)
    : client_(client),
      eviction_client_(eviction_client),
      backend_(backend),
      installer_(installer),
      gpunodes_(gpunodes),
      nodes_(nodes),
      pods_(pods),
      catalog_(catalog),
      options_(std::move(options)),
      health_(std::make_unique<GpuHealthTracker>(GpuHealthTrackerOptions{
          options_.telemetry ? std::max(3 * options_.telemetry->options().interval, std::chrono::milliseconds(30000))
                             : std::chrono::milliseconds(30000),
          std::chrono::minutes(5)})) {}

NodeAgent::~NodeAgent() = default;

Result NodeAgent::reconcile(const runtime::Request& request, std::stop_token stop) {
  if (request.name != options_.node_name) return Result::done();
  AgentPass pass(client_, eviction_client_, backend_, installer_, catalog_, options_, stop);

  // The pods on this node (the informer lists only those).
  for (const auto& p : pods_.list()) {
    PodFacts f = pod_facts(p->doc, "");
    pass.pods.push_back(p);
    if (f.uses_gpu && !f.finished) pass.gpu_pods.push_back(f);
  }
  if (options_.on_gpu_pods) options_.on_gpu_pods(pass.gpu_pods);

  try {
    pass.inventory = backend_.inventory();
  } catch (const backend::BackendError& e) {
    spdlog::error("reading the GPUs ({} backend) failed: {} ({})", backend_.name(), e.what(), e.code());
    pass.backend_error = std::string(e.what()) + " (" + e.code() + ")";
  }

  auto gpunode = gpunodes_.get(options_.node_name);
  if (!gpunode) {
    pass.create_gpunode();
    return Result::requeue_after(std::chrono::seconds(1));
  }
  if (gpunode->deleting) return Result::done();
  auto decoded = api::decode_gpunode(gpunode->doc);
  if (!decoded.ok()) {
    std::string why;
    for (const auto& e : decoded.errors) why += (why.empty() ? "" : "; ") + e.path + ": " + e.reason;
    spdlog::error("GPUNode {} cannot be read, nothing done: {}", options_.node_name, why);
    return Result::requeue_after(options_.inventory_interval);
  }
  pass.gpunode = gpunode;
  pass.object = std::move(*decoded.value);
  pass.previous = pass.object.status.value_or(api::GPUNodeStatus{});
  pass.status = pass.previous;
  pass.node = nodes_.get(options_.node_name);
  pass.plugin_watch = &plugin_watch_;
  pass.patch_memory = &patch_memory_;
  const auto snapshot = options_.telemetry ? options_.telemetry->latest() : nullptr;

  Result result = Result::requeue_after(options_.inventory_interval);
  if (pass.backend_error.empty()) fill_observed(pass.status, pass.inventory);
  // Health first: what is advertised (sync_node) depends on it. Judged on
  // the GPUs as last reported when the inventory cannot be read.
  const auto health_again = pass.judge_health(*health_, snapshot.get());
  if (pass.backend_error.empty()) {
    result = pass.carry_out();
    if (auto again = pass.sync_node();
        again && result.kind() == Result::Kind::RequeueAfter && *again < result.after()) {
      result = Result::requeue_after(*again);
    }
  }
  pass.set_conditions();
  pass.set_health_condition();
  pass.write_status();
  if (health_again && result.kind() == Result::Kind::RequeueAfter && *health_again < result.after()) {
    result = Result::requeue_after(*health_again);
  }
  return result;
}

bool NodeAgent::observe_telemetry(const TelemetrySnapshot& snapshot) {
  auto gpunode = gpunodes_.get(options_.node_name);
  if (!gpunode || gpunode->deleting) return false;
  auto decoded = api::decode_gpunode(gpunode->doc);
  if (!decoded.ok() || !decoded.value->status) return false;
  const auto& reported = decoded.value->status->gpus;
  const auto verdicts =
      health_->judge(decoded.value->spec.health, gpu_identities(reported), &snapshot, std::chrono::system_clock::now());
  auto judged = reported;
  apply_verdicts(judged, verdicts);
  return judged != reported;
}

}  // namespace gpupool::node
