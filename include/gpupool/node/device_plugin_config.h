// The name of the NVIDIA device plugin config a node should use. The plugin
// reads one ConfigMap holding several named configs and picks, per node, the
// one named by the node label nvidia.com/device-plugin.config. The controller
// keeps one config per (MIG strategy, sharing) in use under this name; the
// agent selects it. Both call this function, so the names always agree.
#pragma once

#include <string>

#include "gpupool/api/common_types.h"

namespace gpupool::node {

inline constexpr const char* kDevicePluginConfigLabel = "nvidia.com/device-plugin.config";

// "gpupool-<strategy>-<sharing>": sharing is "exclusive", "ts<replicas>"
// (time-slicing, "-renamed" when resources are renamed to <name>.shared) or
// "mps<replicas>" ("-t<percent>" with a default active thread percentage):
// "gpupool-mixed-exclusive", "gpupool-single-ts4-renamed", "gpupool-mixed-mps8-t50".
// Always a valid label value.
std::string device_plugin_config_name(api::MIGStrategy strategy, const api::Sharing& sharing);

}  // namespace gpupool::node
