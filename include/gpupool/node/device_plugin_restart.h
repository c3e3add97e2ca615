// When a real device plugin (NVIDIA's k8s-device-plugin) runs on the node,
// the agent only selects its config (device_plugin_config.h) and the plugin
// re-advertises after a MIG or sharing change. When the Node's capacity still
// differs from what the GPUs now give after `restart_after`, the agent
// restarts the plugin's pod on its own node (deletes it; its DaemonSet
// recreates it), never anywhere else. Pure decisions, tested with tables.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <rapidjson/document.h>

namespace gpupool::node {

struct DevicePluginPod {
  std::string ns, name, uid;
  std::optional<std::chrono::system_clock::time_point> started;  // status.startTime, else creationTimestamp
  bool deleting = false;                                          // metadata.deletionTimestamp set
};

// The pods (Pod objects on this node) whose labels match one of `selectors`,
// each "key=value[,key=value...]" (every pair must match). Unfinished pods only.
std::vector<DevicePluginPod> device_plugin_pods(const std::vector<const rapidjson::Value*>& pods,
                                                const std::vector<std::string>& selectors);

struct DevicePluginRestart {
  std::vector<DevicePluginPod> restart;  // delete these now
  std::string waiting;                   // otherwise: what the agent waits for, for the operation message
};

// `stale_since`: when the agent first saw the capacity differ (in this
// process). Restarts only pods that have themselves run `restart_after`
// without picking the change up, so a pod just (re)started gets its time and
// the agent never restarts in a loop faster than that.
DevicePluginRestart decide_device_plugin_restart(const std::vector<DevicePluginPod>& pods,
                                                 std::chrono::system_clock::time_point stale_since,
                                                 std::chrono::system_clock::time_point now,
                                                 std::chrono::seconds restart_after,
                                                 const std::vector<std::string>& selectors);

}  // namespace gpupool::node
