#include "node_inventory.h"

#include <spdlog/spdlog.h>

namespace gpupool::controller {

namespace {

constexpr const char* kGpuResources[] = {"nvidia.com/gpu", "amd.com/gpu"};

std::string ready_status(const rapidjson::Value& node) {
  auto status = node.FindMember("status");
  if (status == node.MemberEnd() || !status->value.IsObject()) return "Unknown";
  auto conds = status->value.FindMember("conditions");
  if (conds == status->value.MemberEnd() || !conds->value.IsArray()) return "Unknown";
  for (const auto& c : conds->value.GetArray()) {
    if (kube::string_at(c, {"type"}) == "Ready") return kube::string_at(c, {"status"}) == "True" ? "Ready" : "NotReady";
  }
  return "Unknown";
}

}  // namespace

std::string describe_node(const rapidjson::Value& node) {
  std::string out = kube::string_at(node, {"metadata", "name"}) + " " + ready_status(node);
  for (const char* res : kGpuResources) {
    std::string n = kube::string_at(node, {"status", "capacity", res});
    if (!n.empty()) out += std::string(" ") + res + "=" + n;
  }
  return out;
}

bool NodeInventoryReconciler::description_changed(const kube::Object& old_node, const kube::Object& new_node) {
  return describe_node(old_node.doc) != describe_node(new_node.doc);
}

runtime::Result NodeInventoryReconciler::reconcile(const runtime::Request& request, std::stop_token) {
  auto node = nodes_->store().get(request.key());
  if (!node) {
    spdlog::info("node {} removed", request.name);
  } else {
    spdlog::info("node {}", describe_node(node->doc));
  }
  return runtime::Result::done();
}

}  // namespace gpupool::controller
