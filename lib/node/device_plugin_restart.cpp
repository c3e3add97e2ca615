#include "gpupool/node/device_plugin_restart.h"

#include <string_view>

#include "gpupool/common/rfc3339.h"
#include "gpupool/kube/json_access.h"

namespace gpupool::node {
namespace {

using rapidjson::Value;

using kube::member;
using kube::string_of;

bool matches(const Value* labels, std::string_view selector) {
  if (selector.empty()) return false;
  while (!selector.empty()) {
    const auto comma = selector.find(',');
    const std::string_view pair = selector.substr(0, comma);
    selector = comma == std::string_view::npos ? std::string_view() : selector.substr(comma + 1);
    const auto eq = pair.find('=');
    if (eq == std::string_view::npos) return false;
    const std::string key(pair.substr(0, eq));
    const Value* v = member(labels, key.c_str());
    if (!v || !v->IsString() || std::string_view(v->GetString(), v->GetStringLength()) != pair.substr(eq + 1)) return false;
  }
  return true;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : " or ") + s;
  return out;
}

}  // namespace

std::vector<DevicePluginPod> device_plugin_pods(const std::vector<const rapidjson::Value*>& pods,
                                                const std::vector<std::string>& selectors) {
  std::vector<DevicePluginPod> out;
  for (const Value* pod : pods) {
    const Value* meta = member(pod, "metadata");
    const Value* labels = member(meta, "labels");
    bool selected = false;
    for (const auto& s : selectors) selected = selected || matches(labels, s);
    if (!selected) continue;
    const std::string phase = string_of(member(member(pod, "status"), "phase"));
    if (phase == "Succeeded" || phase == "Failed") continue;
    DevicePluginPod p;
    p.ns = string_of(member(meta, "namespace"));
    p.name = string_of(member(meta, "name"));
    p.uid = string_of(member(meta, "uid"));
    const Value* deletion = member(meta, "deletionTimestamp");
    p.deleting = deletion != nullptr && !deletion->IsNull();
    // startTime is set once the kubelet accepts the pod; before that, its age
    if (auto t = parse_rfc3339(string_of(member(member(pod, "status"), "startTime")))) {
      p.started = to_system_clock(*t);
    } else if (auto c = parse_rfc3339(string_of(member(meta, "creationTimestamp")))) {
      p.started = to_system_clock(*c);
    }
    out.push_back(std::move(p));
  }
  return out;
}

DevicePluginRestart decide_device_plugin_restart(const std::vector<DevicePluginPod>& pods,
                                                 std::chrono::system_clock::time_point stale_since,
                                                 std::chrono::system_clock::time_point now,
                                                 std::chrono::seconds restart_after,
                                                 const std::vector<std::string>& selectors) {
  DevicePluginRestart out;
  const std::string after = std::to_string(restart_after.count()) + "s";
  if (pods.empty()) {
    out.waiting = "no device plugin pod on this node (labels " + join(selectors) +
                  "); the node's advertised GPU resources stay stale until one runs";
    return out;
  }
  for (const auto& p : pods) {
    if (p.deleting) {
      out.waiting = "device plugin pod " + p.ns + "/" + p.name + " is restarting";
      return out;
    }
  }
  if (now - stale_since < restart_after) {
    out.waiting = "waiting up to " + after + " for the device plugin to re-advertise";
    return out;
  }
  for (const auto& p : pods) {
    if (!p.started || now - *p.started < restart_after) {
      out.waiting = "device plugin pod " + p.ns + "/" + p.name + " started less than " + after +
                    " ago; waiting for it to re-advertise";
      return out;
    }
  }
  out.restart = pods;
  return out;
}

}  // namespace gpupool::node
