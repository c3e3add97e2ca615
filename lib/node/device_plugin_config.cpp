#include "gpupool/node/device_plugin_config.h"

#include "gpupool/api/enum_names.h"

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

}  // namespace gpupool::node
