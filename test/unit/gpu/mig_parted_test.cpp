// NVIDIA mig-parted config files.
#include <gtest/gtest.h>

#include <fstream>

#include "gpu_fixtures.h"
#include "gpupool/gpu/mig_parted.h"

namespace gpupool::gpu {
namespace {

std::string error_parsing(const std::string& text) {
  try {
    parse_mig_parted(text, "case.yaml");
  } catch (const MigPartedError& e) {
    return e.what();
  }
  ADD_FAILURE() << "parsed without error";
  return "";
}

TEST(MigPartedExample, SharedExamplesConfig) {
  const std::string path = testing::shared_testdata("mig-parted/examples-config.yaml");
  if (path.empty()) GTEST_SKIP() << "no shared test data (" GPUPOOL_SOURCE_DIR "/../shared/testdata or $GPUPOOL_SHARED_TESTDATA)";
  const MigPartedConfig c = load_mig_parted(path);
  EXPECT_EQ(c.version, "v1");
  EXPECT_TRUE(c.unreadable.empty());
  ASSERT_EQ(c.configs.count("all-disabled"), 1U);
  const MigPartedEntry& disabled = c.configs.at("all-disabled").at(0);
  EXPECT_TRUE(disabled.all_devices);
  EXPECT_FALSE(disabled.mig_enabled);
  EXPECT_TRUE(disabled.mig_devices.empty());

  const MigPartedEntry& enabled = c.configs.at("all-enabled").at(0);
  EXPECT_TRUE(enabled.mig_enabled);
  EXPECT_TRUE(enabled.mig_devices.empty());

  EXPECT_EQ(c.configs.at("all-1g.5gb.me").at(0).mig_devices, (std::map<std::string, int>{{"1g.5gb+me", 1}}));
  EXPECT_EQ(c.configs.at("all-balanced").at(0).mig_devices,
            (std::map<std::string, int>{{"1g.5gb", 2}, {"2g.10gb", 1}, {"3g.20gb", 1}}));

  const std::vector<MigPartedEntry>& custom = c.configs.at("custom-config");
  ASSERT_GE(custom.size(), 2U);
  EXPECT_FALSE(custom[0].all_devices);
  EXPECT_EQ(custom[0].devices, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_FALSE(custom[0].mig_enabled);
  EXPECT_EQ(custom[1].devices, (std::vector<int>{4}));
  EXPECT_EQ(custom[1].mig_devices, (std::map<std::string, int>{{"1g.5gb", 7}}));
  for (const auto& [name, entries] : c.configs) {
    for (const MigPartedEntry& e : entries) EXPECT_TRUE(e.device_filter.empty()) << name;
  }
}

TEST(MigPartedExample, InlineConfigAndDeviceFilters) {
  const MigPartedConfig c = parse_mig_parted(R"(
version: v1
mig-configs:
  mixed:
    - devices: all
      device-filter: "0x20B210DE"
      mig-enabled: true
      mig-devices:
        "1g.10gb": 7
    - devices: [0, 1]
      device-filter: ["0x20B010de", "0x233010DE"]
      mig-enabled: true
      mig-devices:
        "3g.40gb": 1
        "1g.10gb+me": 0
        "1c.3g.40gb": 2
    - devices: all
      device-filter: []
      mig-enabled: false
      mig-devices: {}
  off:
    - devices: all
      mig-enabled: off
)",
                                             "inline.yaml");
  const std::vector<MigPartedEntry>& mixed = c.configs.at("mixed");
  ASSERT_EQ(mixed.size(), 3U);
  EXPECT_EQ(mixed[0].device_filter, (std::vector<MigPartedDeviceFilter>{{0x20B2, 0x10DE, std::nullopt}}));
  EXPECT_EQ(mixed[0].mig_devices.at("1g.10gb"), 7);
  EXPECT_EQ(mixed[1].device_filter,
            (std::vector<MigPartedDeviceFilter>{{0x20B0, 0x10DE, std::nullopt}, {0x2330, 0x10DE, std::nullopt}}));
  EXPECT_EQ(mixed[1].devices, (std::vector<int>{0, 1}));
  EXPECT_EQ(mixed[1].mig_devices, (std::map<std::string, int>{{"3g.40gb", 1}, {"1g.10gb+me", 0}, {"1c.3g.40gb", 2}}));
  EXPECT_TRUE(mixed[2].device_filter.empty());
  EXPECT_FALSE(mixed[2].mig_enabled);
  EXPECT_FALSE(c.configs.at("off").at(0).mig_enabled);
}

struct Case {
  const char* name;
  const char* entry;  // the entry under mig-configs.custom-config[1]
  const char* expected;
};

// A file of two configs: `good`, and custom-config whose second entry is `entry`.
std::string with_entry(const char* entry) {
  return std::string("version: v1\nmig-configs:\n  good:\n    - {devices: all, mig-enabled: true, mig-devices: {\"1g.5gb\": 7}}\n"
                     "  custom-config:\n    - devices: all\n      mig-enabled: false\n    - ") +
         entry + "\n";
}

TEST(MigPartedErrors, AnUnreadableConfigIsReportedByNameAndTheOthersStay) {
  const std::vector<Case> cases = {
      {"devices neither all nor a list", "devices: some\n      mig-enabled: false",
       "mig-configs.custom-config[1].devices: expected \"all\" or a list of GPU indexes, got some"},
      {"devices as a map", "devices: {a: 1}\n      mig-enabled: false",
       "mig-configs.custom-config[1].devices: expected \"all\" or a list of GPU indexes, got a map"},
      {"device index not a number", "devices: [0, x]\n      mig-enabled: false",
       "mig-configs.custom-config[1].devices[1]: expected a GPU index, got x"},
      {"device index negative", "devices: [-1]\n      mig-enabled: false",
       "mig-configs.custom-config[1].devices[0]: expected a GPU index, got -1"},
      {"devices missing", "mig-enabled: false", "mig-configs.custom-config[1].devices: required field is missing"},
      {"mig-enabled missing", "devices: all", "mig-configs.custom-config[1].mig-enabled: required field is missing"},
      {"mig-enabled not a bool", "devices: all\n      mig-enabled: maybe",
       "mig-configs.custom-config[1].mig-enabled: expected true or false, got maybe"},
      {"mig-enabled quoted", "devices: all\n      mig-enabled: \"true\"",
       "mig-configs.custom-config[1].mig-enabled: expected true or false, got \"true\""},
      {"mig-devices missing when enabled", "devices: all\n      mig-enabled: true",
       "mig-configs.custom-config[1].mig-devices: required when mig-enabled is true (use {} for none)"},
      {"mig-devices when disabled", "devices: all\n      mig-enabled: false\n      mig-devices: {\"1g.5gb\": 7}",
       "mig-configs.custom-config[1].mig-devices: must be empty when mig-enabled is false"},
      {"mig-devices a list", "devices: all\n      mig-enabled: true\n      mig-devices: [1g.5gb]",
       "mig-configs.custom-config[1].mig-devices: expected a map of profile: count, got a list"},
      {"count negative", "devices: all\n      mig-enabled: true\n      mig-devices: {\"1g.10gb\": -1}",
       "mig-configs.custom-config[1].mig-devices.1g.10gb: count must be a non-negative integer, got -1"},
      {"count not a number", "devices: all\n      mig-enabled: true\n      mig-devices: {\"1g.10gb\": many}",
       "mig-configs.custom-config[1].mig-devices.1g.10gb: count must be a non-negative integer, got many"},
      {"count quoted", "devices: all\n      mig-enabled: true\n      mig-devices: {\"1g.10gb\": \"2\"}",
       "mig-configs.custom-config[1].mig-devices.1g.10gb: count must be a non-negative integer, got \"2\""},
      {"every count zero", "devices: all\n      mig-enabled: true\n      mig-devices: {\"1g.10gb\": 0, \"1g.10gb+me\": 0}",
       "mig-configs.custom-config[1].mig-devices: every count is 0 (mig-parted refuses this; use {} for no instances)"},
      {"profile name", "devices: all\n      mig-enabled: true\n      mig-devices: {\"big\": 1}",
       "mig-configs.custom-config[1].mig-devices.big: not a MIG profile name (like 1g.10gb, 1g.10gb+me, 1g.24gb-me or "
       "1c.3g.40gb): expected <g>g.<gb>gb or <c>c.<g>g.<gb>gb before the attributes"},
      {"profile name with an empty attribute", "devices: all\n      mig-enabled: true\n      mig-devices: {\"1g.5gb++me\": 1}",
       "mig-configs.custom-config[1].mig-devices.1g.5gb++me: not a MIG profile name"},
      {"attributes joined by '+'", "devices: all\n      mig-enabled: true\n      mig-devices: {\"1g.24gb+me+gfx\": 1}",
       "mig-configs.custom-config[1].mig-devices.1g.24gb+me+gfx: not a MIG profile name (like 1g.10gb, 1g.10gb+me, "
       "1g.24gb-me or 1c.3g.40gb): attribute \"me+gfx\" has a character other than letters, digits and '.'"},
      {"both signs", "devices: all\n      mig-enabled: true\n      mig-devices: {\"1g.24gb+gfx-me\": 1}",
       "mig-configs.custom-config[1].mig-devices.1g.24gb+gfx-me: not a MIG profile name (like 1g.10gb, 1g.10gb+me, "
       "1g.24gb-me or 1c.3g.40gb): has both '+' and '-' attributes"},
      {"unknown key", "devices: all\n      mig-enabled: false\n      mig-strategy: single",
       "mig-configs.custom-config[1].mig-strategy: unexpected field (known: devices, device-filter, mig-enabled, "
       "mig-devices)"},
      {"device filter too short", "devices: all\n      device-filter: \"0x20B2\"\n      mig-enabled: false",
       "mig-configs.custom-config[1].device-filter: expected a PCI device and vendor id like \"0x20B210DE\""},
      {"device filter list item", "devices: all\n      device-filter: [\"0x20B210DE\", \"20B210DE\"]\n      mig-enabled: false",
       "mig-configs.custom-config[1].device-filter[1]: expected a PCI device and vendor id"},
      {"device filter subsystem too short", "devices: all\n      device-filter: \"0x2BB510DE:0x204E\"\n      mig-enabled: false",
       "mig-configs.custom-config[1].device-filter: expected a PCI device and vendor id like \"0x20B210DE\" (device "
       "0x20B2, vendor 0x10DE), optionally with \":0x<subsystem>\", got \"0x2BB510DE:0x204E\""},
      {"device filter a map", "devices: all\n      device-filter: {id: 1}\n      mig-enabled: false",
       "mig-configs.custom-config[1].device-filter: expected a device id string or a list of them, got a map"},
      {"entry not a map", "- all", "mig-configs.custom-config[1]: expected a map, got a list"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    MigPartedConfig config;
    ASSERT_NO_THROW(config = parse_mig_parted(with_entry(c.entry), "case.yaml"));
    EXPECT_EQ(config.configs.count("custom-config"), 0U);
    ASSERT_EQ(config.unreadable.count("custom-config"), 1U);
    const MigPartedConfigError& e = config.unreadable.at("custom-config");
    GPUPOOL_EXPECT_CONTAINS(e.message, std::string("mig-parted config case.yaml: ") + c.expected);
    EXPECT_EQ(e.message, "mig-parted config case.yaml: " + e.path + ": " + e.reason);
    EXPECT_EQ(e.path.rfind("mig-configs.custom-config", 0), 0U) << e.path;
    // The other config of the file is untouched.
    ASSERT_EQ(config.configs.count("good"), 1U);
    EXPECT_EQ(config.configs.at("good").at(0).mig_devices, (std::map<std::string, int>{{"1g.5gb", 7}}));
    EXPECT_TRUE(config.unreadable.count("good") == 0);
  }
}

TEST(MigPartedErrors, ConfigShapeErrorsStayInTheirConfig) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"  bad: []\n", "mig-configs.bad: at least one entry is required"},
      {"  bad: all\n", "mig-configs.bad: expected a list of entries, got all"},
      {"  bad:\n    - {devices: all, mig-enabled: false}\n  bad:\n    - {devices: all, mig-enabled: false}\n",
       "mig-configs.bad: config name appears twice"},
  };
  for (const auto& [configs, expected] : cases) {
    SCOPED_TRACE(configs);
    const MigPartedConfig c = parse_mig_parted(
        std::string("version: v1\nmig-configs:\n  ok:\n    - {devices: all, mig-enabled: false}\n") + configs, "case.yaml");
    EXPECT_EQ(c.configs.size(), 1U);
    EXPECT_EQ(c.configs.count("ok"), 1U);
    ASSERT_EQ(c.unreadable.count("bad"), 1U);
    EXPECT_EQ(c.unreadable.at("bad").message, std::string("mig-parted config case.yaml: ") + expected);
  }
}

TEST(MigPartedExample, FilterWithSubsystemAndEmptyFilters) {
  const MigPartedConfig c = parse_mig_parted(R"(
version: v1
mig-configs:
  pro:
    - devices: all
      device-filter: ["0x2BB510DE:0x204E10DE", "0x2bb110de"]
      mig-enabled: true
      mig-devices: {"1g.24gb+gfx": 4, "2g.48gb+me.all": 0}
  none:
    - devices: all
      device-filter: ""
      mig-enabled: false
)",
                                             "pro.yaml");
  EXPECT_TRUE(c.unreadable.empty());
  const MigPartedEntry& pro = c.configs.at("pro").at(0);
  ASSERT_EQ(pro.device_filter.size(), 2U);
  EXPECT_EQ(pro.device_filter[0], (MigPartedDeviceFilter{0x2BB5, 0x10DE, 0x204E10DEU}));
  EXPECT_EQ(pro.device_filter[1], (MigPartedDeviceFilter{0x2BB1, 0x10DE, std::nullopt}));
  EXPECT_EQ(pro.mig_devices, (std::map<std::string, int>{{"1g.24gb+gfx", 4}, {"2g.48gb+me.all", 0}}));
  EXPECT_TRUE(c.configs.at("none").at(0).device_filter.empty());
}

// Only a file that is no mig-parted config at all is refused whole.
TEST(MigPartedErrors, FileErrors) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"mig-configs:\n  a:\n    - {devices: all, mig-enabled: false}\n", "version: required field is missing"},
      {"version: v2\nmig-configs:\n  a:\n    - {devices: all, mig-enabled: false}\n",
       "version: unsupported version v2 (expected v1)"},
      {"version: v1\n", "mig-configs: required field is missing"},
      {"version: v1\nmig-configs: {}\n", "mig-configs: at least one named config is required"},
      {"version: v1\nmig-configs: [a]\n", "mig-configs: expected a map of named configs, got a list"},
      {"version: v1\nmig-configs: {[a]: []}\n", "mig-configs: config names must be strings, got a list"},
      {"version: v1\nextra: 1\nmig-configs:\n  a:\n    - {devices: all, mig-enabled: false}\n",
       "extra: unexpected field (known: version, mig-configs)"},
      {"- 1\n", "top level: expected a map with version and mig-configs, got a list"},
      {"version: v1\nmig-configs: {a: [\n", "YAML"},
  };
  for (const auto& [text, expected] : cases) {
    SCOPED_TRACE(text);
    GPUPOOL_EXPECT_CONTAINS(error_parsing(text), std::string("mig-parted config case.yaml: ") + expected);
  }
}

TEST(MigPartedErrors, MissingFile) {
  try {
    load_mig_parted("/nonexistent/mig-parted.yaml");
    ADD_FAILURE() << "expected MigPartedError";
  } catch (const MigPartedError& e) {
    GPUPOOL_EXPECT_CONTAINS(e.what(), "/nonexistent/mig-parted.yaml");
  }
}

}  // namespace
}  // namespace gpupool::gpu
