#include "gpupool/node/device_plugin_config.h"

#include <algorithm>

#include "gpupool/api/enum_names.h"
#include "gpupool/node/node_labels.h"

namespace gpupool::node {

std::string device_plugin_config_name(api::MIGStrategy strategy, const api::Sharing& sharing) {
  std::string out = "gpupool-" + std::string(api::to_string(strategy)) + "-";
  switch (sharing.mode) {
    case api::SharingMode::exclusive:
      return out + "exclusive";
    case api::SharingMode::time_slicing:
      out += "ts" + std::to_string(sharing.time_slicing ? sharing.time_slicing->replicas : 0);
      if (sharing.time_slicing && sharing.time_slicing->rename_resources) out += "-renamed";
      return out;
    case api::SharingMode::mps:
      out += "mps" + std::to_string(sharing.mps ? sharing.mps->replicas : 0);
      if (sharing.mps && sharing.mps->default_active_thread_percentage) {
        out += "-t" + std::to_string(*sharing.mps->default_active_thread_percentage);
      }
      return out;
  }
  return out + "exclusive";
}

std::string device_plugin_config_yaml(api::MIGStrategy strategy, const api::Sharing& sharing,
                                      const std::vector<std::string>& mig_profiles) {
  std::string out = "version: v1\nflags:\n  migStrategy: " + std::string(api::to_string(strategy)) + "\n";
  const SharingConfig sc = sharing_config(sharing);
  if (sc.replicas < 2) return out;
  if (sc.mps) {
    return out + "sharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: " +
           std::to_string(sc.replicas) + "\n";
  }
  out += "sharing:\n  timeSlicing:\n    renameByDefault: " + std::string(sc.renamed ? "true" : "false") +
         "\n    resources:\n";
  std::vector<std::string> names{"nvidia.com/gpu"};
  if (strategy == api::MIGStrategy::mixed) {
    for (const auto& p : mig_profiles) names.push_back("nvidia.com/mig-" + mig_device_name(p));
  }
  std::sort(names.begin() + 1, names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (const auto& n : names) out += "    - name: " + n + "\n      replicas: " + std::to_string(sc.replicas) + "\n";
  return out;
}

}  // namespace gpupool::node
