// Reader for NVIDIA mig-parted configuration files, so users can bring their
// existing named MIG layouts:
//
//   version: v1
//   mig-configs:
//     all-1g.10gb:
//       - devices: all            # "all" or a list of GPU indexes
//         device-filter: ["0x20B210DE", "0x20B510DE"]   # optional, string or list
//         mig-enabled: true
//         mig-devices:
//           "1g.10gb": 7
//
// (https://github.com/NVIDIA/mig-parted, examples/config.yaml)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpupool::gpu {

// A file that is not a valid mig-parted config; what() has the origin, the
// YAML path and the reason ("mig-parted config <origin>: mig-configs.all-1g.10gb[0]
// .mig-devices.1g.10gb: count must be a non-negative integer, got -1").
// As strict as mig-parted itself: version must be v1, mig-configs and each
// config non-empty, `devices` and `mig-enabled` required, mig-devices required
// when enabled ({} for none) and empty when disabled, unknown fields refused.
class MigPartedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct MigPartedDeviceFilter {
  std::uint16_t device_id = 0;   // 0x20B2
  std::uint16_t vendor_id = 0;   // 0x10DE
  bool operator==(const MigPartedDeviceFilter&) const = default;
};

struct MigPartedEntry {
  bool all_devices = false;
  std::vector<int> devices;                         // when !all_devices
  std::vector<MigPartedDeviceFilter> device_filter; // empty = any model
  bool mig_enabled = false;
  std::map<std::string, int> mig_devices;           // profile -> count (empty when disabled)
};

struct MigPartedConfig {
  std::string version;                                          // "v1"
  std::map<std::string, std::vector<MigPartedEntry>> configs;   // by name
};

MigPartedConfig parse_mig_parted(std::string_view yaml_text, std::string_view origin);
MigPartedConfig load_mig_parted(const std::string& path);

}  // namespace gpupool::gpu
