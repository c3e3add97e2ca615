// Reader for NVIDIA mig-parted configuration files, so users can bring their
// existing named MIG layouts, NVIDIA's published files included
// (deployments/systemd/config-default.yaml, the GPU Operator's
// default-mig-parted-config):
//
//   version: v1
//   mig-configs:
//     all-1g.10gb:
//       - devices: all            # "all" or a list of GPU indexes
//         device-filter: ["0x20B210DE", "0x20B510DE"]   # optional, string or list
//         mig-enabled: true
//         mig-devices:
//           "1g.10gb": 7
//     all-1g.24gb.gfx:
//       - devices: all
//         mig-enabled: true
//         mig-devices: {"1g.24gb+gfx": 4}
//
// (https://github.com/NVIDIA/mig-parted, api/spec/v1 and examples/config.yaml)
//
// Each named config stands alone: one that cannot be read is reported by
// name in MigPartedConfig::unreadable and the file's other configs stay
// usable. Only a broken file as a whole (not YAML, version not v1, no
// mig-configs) is an error for the file.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpupool::gpu {

// A file that is not a mig-parted config at all; what() has the origin, the
// YAML path and the reason ("mig-parted config <origin>: version: unsupported
// version v2 (expected v1)"). Thrown for: not YAML, top level not a map or
// with fields other than version and mig-configs, version missing or not v1,
// mig-configs missing, not a map or empty; and by load_mig_parted for a file
// it cannot read.
class MigPartedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One device-filter item: "0x20B210DE" (device 0x20B2, vendor 0x10DE), or
// with a subsystem as mig-parted reads it since 2026: "0x2BB510DE:0x204E10DE".
struct MigPartedDeviceFilter {
  std::uint16_t device_id = 0;   // 0x20B2
  std::uint16_t vendor_id = 0;   // 0x10DE
  std::optional<std::uint32_t> subsystem;  // subsystem device << 16 | subsystem vendor, when given
  bool operator==(const MigPartedDeviceFilter&) const = default;
};

struct MigPartedEntry {
  bool all_devices = false;
  std::vector<int> devices;                         // when !all_devices
  std::vector<MigPartedDeviceFilter> device_filter; // empty = any model
  bool mig_enabled = false;
  // Profile -> count, names as written ("1g.24gb+gfx", "1c.3g.40gb"), each a
  // valid MIG profile name (gpu/mig_profile_name.h); empty when disabled.
  std::map<std::string, int> mig_devices;
};

// Why one named config cannot be read. As strict as mig-parted itself:
// a config must be a non-empty list of entries; an entry needs `devices` and
// `mig-enabled`, mig-devices when enabled ({} for none) and none when
// disabled, no other fields; profile names follow NVIDIA's grammar, counts
// are non-negative integers and not all 0; a device filter is
// "0x<device><vendor>" (8 hex digits), optionally ":0x<subsystem>". A
// config name given twice is unreadable too.
struct MigPartedConfigError {
  std::string path;     // "mig-configs.custom[1].mig-devices.1g.5gb++me"
  std::string reason;   // "not a MIG profile name (...): attribute \"+me\" has a character ..."
  std::string message;  // "mig-parted config <origin>: <path>: <reason>"
};

struct MigPartedConfig {
  std::string version;                                             // "v1"
  std::map<std::string, std::vector<MigPartedEntry>> configs;      // the readable configs, by name
  std::map<std::string, MigPartedConfigError> unreadable;          // the others, by name (first error each)
};

// Throws MigPartedError for a file-level problem only (see above).
MigPartedConfig parse_mig_parted(std::string_view yaml_text, std::string_view origin);
MigPartedConfig load_mig_parted(const std::string& path);

}  // namespace gpupool::gpu
