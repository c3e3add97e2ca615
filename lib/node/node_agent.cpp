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
      options_(std::move(options)) {}

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

  Result result = Result::requeue_after(options_.inventory_interval);
  if (pass.backend_error.empty()) {
    fill_observed(pass.status, pass.inventory);
    result = pass.carry_out();
    if (auto again = pass.sync_node();
        again && result.kind() == Result::Kind::RequeueAfter && *again < result.after()) {
      result = Result::requeue_after(*again);
    }
  }
  pass.set_conditions();
  pass.write_status();
  return result;
}

}  // namespace gpupool::node
