// NVIDIA mig-parted config (v1) reader, as strict as mig-parted itself
// (api/spec/v1): unknown fields, a missing `devices` or `mig-enabled`,
// mig-devices on a MIG-disabled entry are errors.
#include "gpupool/gpu/mig_parted.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "text.h"
#include "yaml_util.h"

namespace gpupool::gpu {

namespace {

// "1g.10gb", "1c.1g.10gb", "1g.10gb+me", "1g.10gb+me.all".
bool is_profile_name(std::string_view s) {
  const auto digits = [&s]() {
    std::size_t n = 0;
    while (n < s.size() && s[n] >= '0' && s[n] <= '9') ++n;
    s.remove_prefix(n);
    return n > 0;
  };
  const auto literal = [&s](std::string_view lit) {
    if (s.substr(0, lit.size()) != lit) return false;
    s.remove_prefix(lit.size());
    return true;
  };
  if (!digits()) return false;
  if (literal("c.")) {
    if (!digits()) return false;
  }
  if (!literal("g.") || !digits() || !literal("gb")) return false;
  while (!s.empty()) {
    if (!literal("+")) return false;
    std::size_t n = 0;
    for (; n < s.size() && s[n] != '+'; ++n) {
      const char c = s[n];
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.')) return false;
    }
    if (n == 0) return false;
    s.remove_prefix(n);
  }
  return true;
}

class Reader {
 public:
  explicit Reader(std::string_view origin) : origin_(origin) {}

  MigPartedConfig read(const YAML::Node& root) const {
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
      const std::string name = kv.first.Scalar();
      const std::string path = "mig-configs." + name;
      if (!kv.second.IsSequence()) fail(path, "expected a list of entries, got " + yaml::describe(kv.second));
      if (kv.second.size() == 0) fail(path, "at least one entry is required");
      std::vector<MigPartedEntry> entries;
      for (std::size_t i = 0; i < kv.second.size(); ++i) {
        entries.push_back(read_entry(kv.second[i], path + "[" + std::to_string(i) + "]"));
      }
      config.configs.emplace(name, std::move(entries));
    }
    return config;
  }

 private:
  [[noreturn]] void fail(const std::string& path, const std::string& reason) const {
    throw MigPartedError("mig-parted config " + std::string(origin_) + ": " + path + ": " + reason);
  }

  void check_keys(const YAML::Node& map, const std::string& path, const std::vector<std::string>& known) const {
    for (const auto& kv : map) {
      const std::string key = kv.first.Scalar();
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        fail(path.empty() ? key : path + "." + key, "unexpected field (known: " + text::join(known, ", ") + ")");
      }
    }
  }

  MigPartedEntry read_entry(const YAML::Node& node, const std::string& path) const {
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

  void read_devices(const YAML::Node& node, const std::string& path, MigPartedEntry& entry) const {
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

  std::vector<MigPartedDeviceFilter> read_filter(const YAML::Node& node, const std::string& path) const {
    std::vector<MigPartedDeviceFilter> out;
    const auto one = [&](const YAML::Node& item, const std::string& where) {
      const auto id = item.IsScalar() ? text::parse_hex(item.Scalar(), 8) : std::nullopt;
      if (!id) {
        fail(where, "expected a PCI device and vendor id like \"0x20B210DE\" (device 0x20B2, vendor 0x10DE), got " +
                        yaml::describe(item));
      }
      out.push_back({static_cast<std::uint16_t>(*id >> 16), static_cast<std::uint16_t>(*id & 0xFFFF)});
    };
    if (node.IsScalar()) {
      one(node, path);
    } else if (node.IsSequence()) {
      for (std::size_t i = 0; i < node.size(); ++i) one(node[i], path + "[" + std::to_string(i) + "]");
    } else {
      fail(path, "expected a device id string or a list of them, got " + yaml::describe(node));
    }
    return out;
  }

  std::map<std::string, int> read_mig_devices(const YAML::Node& node, const std::string& path) const {
    if (!node.IsMap()) fail(path, "expected a map of profile: count, got " + yaml::describe(node));
    std::map<std::string, int> out;
    for (const auto& kv : node) {
      const std::string profile = kv.first.Scalar();
      const std::string where = path + "." + profile;
      if (!is_profile_name(profile)) fail(where, "not a MIG profile name (like 1g.10gb or 1g.10gb+me)");
      const auto count = yaml::is_plain_scalar(kv.second) ? text::parse_non_negative(kv.second.Scalar()) : std::nullopt;
      if (!count) fail(where, "count must be a non-negative integer, got " + yaml::describe(kv.second));
      if (!out.emplace(profile, *count).second) fail(where, "appears twice");
    }
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
