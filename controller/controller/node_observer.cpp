#include "node_observer.h"

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

void observe_nodes(kube::Client& client, std::stop_token stop) {
  kube::ResourceRef nodes{kube::core::nodes(), "", "", ""};
  while (!stop.stop_requested()) {
    int count = 0;
    kube::ListOptions list_opts;
    list_opts.limit = 500;
    std::string rv = client.list_items(nodes, list_opts, [&](std::string_view item) {
      auto doc = kube::parse_json(item);
      spdlog::info("node {}", describe_node(doc));
      ++count;
    });
    spdlog::info("listed {} nodes at resourceVersion {}; watching", count, rv);

    kube::ListOptions watch_opts;
    watch_opts.resource_version = rv;
    watch_opts.allow_watch_bookmarks = true;
    watch_opts.timeout_seconds = 300;
    auto result = client.watch(nodes, watch_opts, [](const kube::WatchEvent& ev) {
      if (ev.type == kube::WatchEventType::Bookmark) return true;
      auto doc = kube::parse_json(ev.object);
      spdlog::info("node {} {}", kube::to_string(ev.type), describe_node(doc));
      return true;
    }, stop);
    if (result.end == kube::WatchEnd::Gone) {
      spdlog::info("watch of nodes expired at resourceVersion {}; relisting", result.last_resource_version);
    }
  }
}

}  // namespace gpupool::controller
