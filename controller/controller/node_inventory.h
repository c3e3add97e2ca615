// Beside the GPU reconcilers, the controller logs a line per Node whose
// name, readiness or GPU capacity changed (the first controller this
// project ran, kept as a plain record of what the nodes offer). It shares
// the Node informer the pool reconciler uses.
#pragma once

#include <memory>
#include <string>

#include "gpupool/runtime/controller.h"

namespace gpupool::controller {

// "kwok-node-0 Ready nvidia.com/gpu=8": a one-line description of a node.
std::string describe_node(const rapidjson::Value& node);

class NodeInventoryReconciler final : public runtime::Reconciler {
 public:
  explicit NodeInventoryReconciler(std::shared_ptr<runtime::Informer<kube::Object>> nodes) : nodes_(std::move(nodes)) {}
  runtime::Result reconcile(const runtime::Request& request, std::stop_token stop) override;

  // Passes node updates whose description changes (heartbeats do not).
  static bool description_changed(const kube::Object& old_node, const kube::Object& new_node);

 private:
  std::shared_ptr<runtime::Informer<kube::Object>> nodes_;
};

}  // namespace gpupool::controller
