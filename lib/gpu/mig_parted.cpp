// NVIDIA mig-parted config (v1) reader, as strict as mig-parted itself
// (api/spec/v1, pkg/types): unknown fields, a missing `devices` or
// `mig-enabled`, mig-devices on a MIG-disabled entry are errors. A problem
// inside one named config makes that config unreadable, not the file.
#include "gpupool/gpu/mig_parted.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <variant>

#include "gpupool/gpu/mig_profile_name.h"
#include "text.h"
#include "yaml_util.h"

namespace gpupool::gpu {

namespace {

// What Reader::fail throws; read() turns it into a MigPartedError (file
// level) or a MigPartedConfigError (inside a config).
struct Failure {
  std::string path;
  std::string reason;
};

class Reader {
 public:
  explicit Reader(std::string_view origin) : origin_(origin) {}

  MigPartedConfig read(const YAML::Node& root) const {
    try {
      return read_file(root);
    } catch (const Failure& f) {
      throw MigPartedError(message(f));
    }
  }

 private:
  std::string message(const Failure& f) const {
    return "mig-parted config " + std::string(origin_) + ": " + f.path + ": " + f.reason;
  }

  [[noreturn]] static void fail(const std::string& path, const std::string& reason) { throw Failure{path, reason}; }

  MigPartedConfig read_file(const YAML::Node& root) const {
    if (!root.IsMap()) fail("top level", "expected a map with version and mig-configs, got " + yaml::describe(root));
    check_keys(root, "", {"version", "mig-configs"});
    MigPartedConfig config;
    const YAML::Node version = root["version"];
    if (!version.IsDefined()) fail("version", "required field is missing");
    if (!version.IsScalar() || version.Scalar() != "v1") {
      fail("version", "unsupported version " + yaml::describe(version) + " (expected v1)");
    }
    config.version = version.Scalar();
    const YAML::Node configs = root["mig-configs"];
    if (!configs.IsDefined()) fail("mig-configs", "required field is missing");
    if (!configs.IsMap()) fail("mig-configs", "expected a map of named configs, got " + yaml::describe(configs));
    if (configs.size() == 0) fail("mig-configs", "at least one named config is required");
    for (const auto& kv : configs) {
      if (!kv.first.IsScalar()) fail("mig-configs", "config names must be strings, got " + yaml::describe(kv.first));
      read_config(kv.first.Scalar(), kv.second, config);
    }
    return config;
  }

  // One named config into config.configs, or its first problem into config.unreadable.
  void read_config(const std::string& name, const YAML::Node& node, MigPartedConfig& config) const {
    const std::string path = "mig-configs." + name;
    try {
      if (config.configs.count(name) > 0 || config.unreadable.count(name) > 0) fail(path, "config name appears twice");
      if (!node.IsSequence()) fail(path, "expected a list of entries, got " + yaml::describe(node));
      if (node.size() == 0) fail(path, "at least one entry is required");
      std::vector<MigPartedEntry> entries;
      for (std::size_t i = 0; i < node.size(); ++i) {
        entries.push_back(read_entry(node[i], path + "[" + std::to_string(i) + "]"));
      }
      config.configs.emplace(name, std::move(entries));
    } catch (const Failure& f) {
      // A name given twice leaves neither copy usable: which one was meant is unknown.
      config.configs.erase(name);
      config.unreadable.insert_or_assign(name, MigPartedConfigError{f.path, f.reason, message(f)});
    }
  }

  static void check_keys(const YAML::Node& map, const std::string& path, const std::vector<std::string>& known) {
    for (const auto& kv : map) {
      const std::string key = kv.first.Scalar();
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        fail(path.empty() ? key : path + "." + key, "unexpected field (known: " + text::join(known, ", ") + ")");
      }
    }
  }

  static MigPartedEntry read_entry(const YAML::Node& node, const std::string& path) {
    if (!node.IsMap()) fail(path, "expected a map, got " + yaml::describe(node));
    check_keys(node, path, {"devices", "device-filter", "mig-enabled", "mig-devices"});
    MigPartedEntry entry;
    read_devices(node["devices"], path + ".devices", entry);
    if (const YAML::Node filter = node["device-filter"]; filter.IsDefined()) {
      entry.device_filter = read_filter(filter, path + ".device-filter");
    }
    const YAML::Node enabled = node["mig-enabled"];
    if (!enabled.IsDefined()) fail(path + ".mig-enabled", "required field is missing");
    if (!yaml::is_plain_scalar(enabled) || !YAML::convert<bool>::decode(enabled, entry.mig_enabled)) {
      fail(path + ".mig-enabled", "expected true or false, got " + yaml::describe(enabled));
    }
    const YAML::Node devices = node["mig-devices"];
    const bool has_devices = devices.IsDefined() && !devices.IsNull();
    if (entry.mig_enabled && !has_devices) {
      fail(path + ".mig-devices", "required when mig-enabled is true (use {} for none)");
    }
    if (has_devices) entry.mig_devices = read_mig_devices(devices, path + ".mig-devices");
    if (!entry.mig_enabled && !entry.mig_devices.empty()) {
      fail(path + ".mig-devices", "must be empty when mig-enabled is false");
    }
    return entry;
  }

  static void read_devices(const YAML::Node& node, const std::string& path, MigPartedEntry& entry) {
    const std::string expected = "expected \"all\" or a list of GPU indexes";
    if (!node.IsDefined()) fail(path, "required field is missing");
    if (node.IsScalar()) {
      if (node.Scalar() != "all") fail(path, expected + ", got " + yaml::describe(node));
      entry.all_devices = true;
      return;
    }
    if (!node.IsSequence()) fail(path, expected + ", got " + yaml::describe(node));
    for (std::size_t i = 0; i < node.size(); ++i) {
      const auto index = yaml::is_plain_scalar(node[i]) ? text::parse_non_negative(node[i].Scalar()) : std::nullopt;
      if (!index) fail(path + "[" + std::to_string(i) + "]", "expected a GPU index, got " + yaml::describe(node[i]));
      entry.devices.push_back(*index);
    }
  }

  // "0x20B210DE", or "0x2BB510DE:0x204E10DE" with a subsystem (pkg/types/device.go).
  static std::optional<MigPartedDeviceFilter> parse_filter(const std::string& s) {
    const auto colon = s.find(':');
    const auto id = text::parse_hex(std::string_view(s).substr(0, colon), 8);
    if (!id) return std::nullopt;
    MigPartedDeviceFilter f{static_cast<std::uint16_t>(*id >> 16), static_cast<std::uint16_t>(*id & 0xFFFF),
                            std::nullopt};
    if (colon != std::string::npos) {
      f.subsystem = text::parse_hex(std::string_view(s).substr(colon + 1), 8);
      if (!f.subsystem) return std::nullopt;
    }
    return f;
  }

  static std::vector<MigPartedDeviceFilter> read_filter(const YAML::Node& node, const std::string& path) {
    std::vector<MigPartedDeviceFilter> out;
    const auto one = [&](const YAML::Node& item, const std::string& where) {
      const auto f = item.IsScalar() ? parse_filter(item.Scalar()) : std::nullopt;
      if (!f) {
        fail(where, "expected a PCI device and vendor id like \"0x20B210DE\" (device 0x20B2, vendor 0x10DE), "
                    "optionally with \":0x<subsystem>\", got " + yaml::describe(item));
      }
      out.push_back(*f);
    };
    if (node.IsScalar()) {
      if (!node.Scalar().empty()) one(node, path);  // "" is no filter, as in mig-parted
    } else if (node.IsSequence()) {
      for (std::size_t i = 0; i < node.size(); ++i) one(node[i], path + "[" + std::to_string(i) + "]");
    } else if (!node.IsNull()) {
      fail(path, "expected a device id string or a list of them, got " + yaml::describe(node));
    }
    return out;
  }

  static std::map<std::string, int> read_mig_devices(const YAML::Node& node, const std::string& path) {
    if (!node.IsMap()) fail(path, "expected a map of profile: count, got " + yaml::describe(node));
    std::map<std::string, int> out;
    bool any_nonzero = false;
    for (const auto& kv : node) {
      const std::string profile = kv.first.Scalar();
      const std::string where = path + "." + profile;
      const auto parsed = parse_mig_profile_name(profile);
      if (const auto* why = std::get_if<std::string>(&parsed)) {
        fail(where, "not a MIG profile name (like 1g.10gb, 1g.10gb+me, 1g.24gb-me or 1c.3g.40gb): " + *why);
      }
      const auto count = yaml::is_plain_scalar(kv.second) ? text::parse_non_negative(kv.second.Scalar()) : std::nullopt;
      if (!count) fail(where, "count must be a non-negative integer, got " + yaml::describe(kv.second));
      if (!out.emplace(profile, *count).second) fail(where, "appears twice");
      any_nonzero = any_nonzero || *count > 0;
    }
    if (!out.empty() && !any_nonzero) fail(path, "every count is 0 (mig-parted refuses this; use {} for no instances)");
    return out;
  }

  std::string_view origin_;
};

}  // namespace

MigPartedConfig parse_mig_parted(std::string_view yaml_text, std::string_view origin) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml_text));
  } catch (const YAML::Exception& e) {
    throw MigPartedError("mig-parted config " + std::string(origin) + ": YAML: " + e.what());
  }
  return Reader(origin).read(root);
}

MigPartedConfig load_mig_parted(const std::string& path) {
  std::string yaml_text;
  try {
    yaml_text = text::read_file(path);
  } catch (const std::runtime_error& e) {
    throw MigPartedError(std::string("mig-parted config: ") + e.what());
  }
  return parse_mig_parted(yaml_text, path);
}

}  // namespace gpupool::gpu
