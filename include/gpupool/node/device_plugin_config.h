// The name of the NVIDIA device plugin config a node should use. The plugin
// reads one ConfigMap holding several named configs and picks, per node, the
// one named by the node label nvidia.com/device-plugin.config. The controller
// keeps one config per (MIG strategy, sharing) in use under this name; the
// agent selects it. Both call this function, so the names always agree.
#pragma once

#include <string>
#include <vector>

#include "gpupool/api/common_types.h"

namespace gpupool::node {

inline constexpr const char* kDevicePluginConfigLabel = "nvidia.com/device-plugin.config";

// "gpupool-<strategy>-<sharing>": sharing is "exclusive", "ts<replicas>"
// (time-slicing, "-renamed" when resources are renamed to <name>.shared) or
// "mps<replicas>" ("-t<percent>" with a default active thread percentage):
// "gpupool-mixed-exclusive", "gpupool-single-ts4-renamed", "gpupool-mixed-mps8-t50".
// Always a valid label value.
std::string device_plugin_config_name(api::MIGStrategy strategy, const api::Sharing& sharing);

// The config of that name in the device plugin's file format (version v1):
// flags.migStrategy, and sharing.timeSlicing or sharing.mps listing
// nvidia.com/gpu and, for time-slicing, every MIG resource of the catalog
// (`mig_profiles`, as nvidia.com/mig-<profile>), each with the replicas, so
// that what the plugin advertises is what extended_resources() computes.
// MPS shares only nvidia.com/gpu (the plugin refuses MPS for MIG devices); a
// default active thread percentage is not part of the plugin's config.
std::string device_plugin_config_yaml(api::MIGStrategy strategy, const api::Sharing& sharing,
                                      const std::vector<std::string>& mig_profiles);

}  // namespace gpupool::node
