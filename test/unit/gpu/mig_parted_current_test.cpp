// A current mig-parted file (test/unit/gpu/data/mig-parted-current.yaml,
// shaped like NVIDIA's published default config) against the built-in
// catalog: one broken config is reported by name, the others resolve per
// model and per GPU, and fit.
#include <gtest/gtest.h>

#include "gpu_fixtures.h"
#include "gpupool/gpu/mig_parted.h"
#include "gpupool/gpu/named_layouts.h"

namespace gpupool::gpu {
namespace {

constexpr const char* kFile = GPUPOOL_SOURCE_DIR "/test/unit/gpu/data/mig-parted-current.yaml";

const MigPartedConfig& current() {
  static const MigPartedConfig config = load_mig_parted(kFile);
  return config;
}

const GpuModel& model(const std::string& id) {
  const GpuModel* m = Catalog::builtin().find(id);
  if (m == nullptr) throw std::runtime_error("no built-in model " + id);
  return *m;
}

TEST(MigPartedCurrentFile, OneBrokenConfigIsReportedByNameAndTheOthersStay) {
  const MigPartedConfig& c = current();
  ASSERT_EQ(c.unreadable.size(), 1U);
  ASSERT_EQ(c.unreadable.count("team-inference"), 1U);
  const MigPartedConfigError& e = c.unreadable.at("team-inference");
  EXPECT_EQ(e.path, "mig-configs.team-inference[0].mig-devices.1g.24gb+me+gfx");
  GPUPOOL_EXPECT_CONTAINS(e.reason, "attribute \"me+gfx\" has a character other than letters, digits and '.'");
  EXPECT_EQ(c.configs.count("team-inference"), 0U);
  EXPECT_EQ(c.configs.size(), 21U);  // every other config of the file
  for (const char* name : {"all-1g.24gb.gfx", "all-balanced", "render-farm", "oem-video", "shared-3g"}) {
    EXPECT_EQ(c.configs.count(name), 1U) << name;
  }

  // Asking for the broken one names it and says why; it is still a layout name.
  EXPECT_TRUE(is_layout_name("team-inference", &c));
  const auto r = resolve_named_layout("team-inference", model("rtx-pro-6000-blackwell-96gb"), &c);
  EXPECT_EQ(testing::error_of(r),
            "team-inference: the mig-parted config cannot be read: mig-parted config " + std::string(kFile) +
                ": mig-configs.team-inference[0].mig-devices.1g.24gb+me+gfx: " + e.reason);
}

struct Resolution {
  const char* config;
  const char* model;
  ProfileCounts expected;  // empty with mig_enabled: see `error`
  const char* error;       // "" when it resolves
};

TEST(MigPartedCurrentFile, EachConfigResolvesPerModelOrSaysWhyNot) {
  const std::vector<Resolution> cases = {
      {"all-1g.24gb.gfx", "rtx-pro-6000-blackwell-96gb", {{"1g.24gb+gfx", 4}}, ""},
      {"all-1g.24gb.me.all", "rtx-pro-6000-blackwell-96gb", {{"1g.24gb+me.all", 1}}, ""},
      {"all-1g.24gb-me", "rtx-pro-6000-blackwell-96gb", {{"1g.24gb-me", 4}}, ""},
      {"all-2g.48gb.gfx", "rtx-pro-6000-blackwell-96gb", {{"2g.48gb+gfx", 2}}, ""},
      {"all-2g.48gb.me.all", "rtx-pro-6000-blackwell-96gb", {{"2g.48gb+me.all", 1}}, ""},
      {"all-2g.48gb-me", "rtx-pro-6000-blackwell-96gb", {{"2g.48gb-me", 2}}, ""},
      {"all-4g.96gb.gfx", "rtx-pro-6000-blackwell-96gb", {{"4g.96gb+gfx", 1}}, ""},
      {"all-1g.24gb", "rtx-pro-6000-blackwell-96gb", {{"1g.24gb", 4}}, ""},
      {"all-1g.24gb", "h100-nvl-94gb", {{"1g.24gb", 4}}, ""},
      {"all-1g.24gb", "gh200-96gb", {{"1g.24gb", 4}}, ""},
      {"all-1g.24gb", "h20-96gb", {{"1g.24gb", 4}}, ""},
      // One config, another count per model (device-filter per entry).
      {"all-1g.10gb", "a100-sxm4-80gb", {{"1g.10gb", 7}}, ""},
      {"all-1g.10gb", "h100-sxm5-80gb", {{"1g.10gb", 7}}, ""},
      {"all-1g.10gb", "a100-sxm4-40gb", {{"1g.10gb", 4}}, ""},
      {"all-1g.10gb", "h200-141gb", {}, "all-1g.10gb: no entry of this mig-parted config applies to GPU 0 (H200)"},
      {"all-1g.23gb", "gb200-186gb", {{"1g.23gb", 7}}, ""},
      {"all-1g.23gb", "b200-180gb", {{"1g.23gb", 7}}, ""},
      {"all-7g.186gb", "gb200-186gb", {{"7g.186gb", 1}}, ""},
      {"all-1g.35gb.me", "gb300-288gb", {{"1g.35gb+me", 1}}, ""},
      {"all-3g.135gb", "b300-288gb", {{"3g.135gb", 2}}, ""},
      {"all-balanced", "gb200-186gb", {{"1g.23gb", 2}, {"2g.47gb", 1}, {"3g.93gb", 1}}, ""},
      {"all-balanced", "gb300-288gb", {{"1g.35gb", 2}, {"2g.70gb", 1}, {"3g.139gb", 1}}, ""},
      {"all-balanced", "rtx-pro-6000-blackwell-96gb", {{"1g.24gb", 2}, {"2g.48gb", 1}}, ""},
      {"all-balanced", "b300-288gb", {{"1g.34gb", 2}, {"2g.67gb", 1}, {"3g.135gb", 1}}, ""},
      {"all-balanced", "h200-141gb", {{"1g.18gb", 2}, {"2g.35gb", 1}, {"3g.71gb", 1}}, ""},
      {"all-balanced", "a100-sxm4-80gb", {{"1g.10gb", 2}, {"2g.20gb", 1}, {"3g.40gb", 1}}, ""},
      {"all-balanced", "a100-sxm4-40gb", {{"1g.5gb", 2}, {"2g.10gb", 1}, {"3g.20gb", 1}}, ""},
      {"all-balanced", "a30-24gb", {{"1g.6gb", 2}, {"2g.12gb", 1}}, ""},
      {"all-balanced", "gh200-96gb", {{"1g.12gb", 2}, {"2g.24gb", 1}, {"3g.48gb", 1}}, ""},
      {"all-balanced", "h20-96gb", {{"1g.12gb", 2}, {"2g.24gb", 1}, {"3g.48gb", 1}}, ""},
      // The file has no H100 NVL entry in all-balanced: not applied, said so.
      {"all-balanced", "h100-nvl-94gb", {}, "all-balanced: no entry of this mig-parted config applies to GPU 0 (H100 NVL)"},
      // A config for another model.
      {"all-1g.24gb.gfx", "a100-sxm4-80gb", {},
       "all-1g.24gb.gfx: A100-SXM4-80GB has no profile 1g.24gb+gfx (mig-configs.all-1g.24gb.gfx[0].mig-devices)"},
      {"all-3g.135gb", "gb300-288gb", {}, "all-3g.135gb: GB300 has no profile 3g.135gb (mig-configs.all-3g.135gb[0].mig-devices)"},
      // Compute-instance profiles are read, and refused where used.
      {"shared-3g", "a100-sxm4-80gb", {},
       "shared-3g: 1c.3g.40gb is a compute-instance profile (1 of the 3 slices of a GPU instance); gpupool creates one "
       "compute instance per GPU instance (mig-configs.shared-3g[0].mig-devices)"},
      {"all-enabled", "t4-16gb", {}, "all-enabled: Tesla T4 does not support MIG"},
  };
  for (const Resolution& c : cases) {
    SCOPED_TRACE(std::string(c.config) + " on " + c.model);
    const GpuModel& m = model(c.model);
    const auto r = resolve_named_layout(c.config, m, &current());
    if (*c.error != '\0') {
      EXPECT_EQ(testing::error_of(r), c.error);
      continue;
    }
    ASSERT_TRUE(std::holds_alternative<NamedLayout>(r)) << testing::error_of(r);
    const NamedLayout& layout = std::get<NamedLayout>(r);
    EXPECT_TRUE(layout.mig_enabled);
    EXPECT_EQ(layout.counts, c.expected);
    // What resolves also fits the model.
    EXPECT_EQ(testing::value_of(plan(m, layout.counts)).empty(), false);
  }
}

TEST(MigPartedCurrentFile, DisabledAppliesToEveryModel) {
  for (const char* id : {"t4-16gb", "rtx-pro-6000-blackwell-96gb", "gb300-288gb"}) {
    SCOPED_TRACE(id);
    const auto r = resolve_named_layout("all-disabled", model(id), &current());
    ASSERT_TRUE(std::holds_alternative<NamedLayout>(r)) << testing::error_of(r);
    EXPECT_FALSE(std::get<NamedLayout>(r).mig_enabled);
    EXPECT_TRUE(std::get<NamedLayout>(r).counts.empty());
  }
}

struct PerGpu {
  const char* name;
  const char* config;
  LayoutTarget target;
  ProfileCounts expected;
  const char* error;
};

// device-filter is matched per entry against the GPU itself when its PCI ids
// are known; the last entry that applies to a GPU wins, as mig-parted applies them.
TEST(MigPartedCurrentFile, DeviceFilterPerEntryAndPerGpu) {
  const std::vector<PerGpu> cases = {
      {"GPU 0 gets the later, narrower entry", "render-farm", {0, 0x2BB5, std::nullopt},
       {{"2g.48gb+gfx", 1}, {"1g.24gb+gfx", 2}}, ""},
      {"GPU 1 only the first", "render-farm", {1, 0x2BB5, std::nullopt}, {{"1g.24gb-me", 4}}, ""},
      {"model-level when the PCI id is unknown", "render-farm", {3, std::nullopt, std::nullopt}, {{"1g.24gb-me", 4}}, ""},
      {"a Workstation Edition is not the filtered Server Edition", "render-farm", {0, 0x2BB1, std::nullopt}, {},
       "render-farm: no entry of this mig-parted config applies to GPU 0 (RTX PRO 6000 Blackwell Server Edition, PCI "
       "0x2BB1)"},
      {"all-balanced on the Server Edition", "all-balanced", {0, 0x2BB5, std::nullopt}, {{"1g.24gb", 2}, {"2g.48gb", 1}},
       ""},
      {"all-balanced on a Max-Q Workstation Edition", "all-balanced", {2, 0x2BB4, std::nullopt}, {},
       "all-balanced: no entry of this mig-parted config applies to GPU 2 (RTX PRO 6000 Blackwell Server Edition, PCI "
       "0x2BB4)"},
      {"subsystem filter, subsystem matches", "oem-video", {0, 0x2BB5, 0x204E10DEU},
       {{"1g.24gb+me.all", 1}, {"1g.24gb", 3}}, ""},
      {"subsystem filter, other board", "oem-video", {0, 0x2BB5, 0x1234ABCDU}, {},
       "oem-video: no entry of this mig-parted config applies to GPU 0 (RTX PRO 6000 Blackwell Server Edition, PCI "
       "0x2BB5)"},
      {"subsystem filter, subsystem unknown", "oem-video", {0, 0x2BB5, std::nullopt}, {},
       "oem-video: no entry of this mig-parted config applies to GPU 0 (RTX PRO 6000 Blackwell Server Edition, PCI "
       "0x2BB5)"},
  };
  const GpuModel& rtx = model("rtx-pro-6000-blackwell-96gb");
  for (const PerGpu& c : cases) {
    SCOPED_TRACE(c.name);
    const auto r = resolve_named_layout(c.config, rtx, &current(), c.target);
    if (*c.error != '\0') {
      EXPECT_EQ(testing::error_of(r), c.error);
      continue;
    }
    ASSERT_TRUE(std::holds_alternative<NamedLayout>(r)) << testing::error_of(r);
    EXPECT_EQ(std::get<NamedLayout>(r).counts, c.expected);
    EXPECT_FALSE(testing::value_of(plan(rtx, std::get<NamedLayout>(r).counts)).empty());
  }
}

// NVIDIA's all-<profile> and all-balanced configs give what the built-in
// names give without the file, on every model where the file's config resolves.
TEST(MigPartedCurrentFile, BuiltinNamesAgreeWithNvidiasConfigs) {
  int compared = 0;
  for (const auto& [name, entries] : current().configs) {
    if (name.rfind("all-", 0) != 0 || name == "all-enabled" || name == "all-disabled") continue;
    for (const GpuModel& m : Catalog::builtin().models()) {
      if (!m.mig) continue;
      const auto from_file = resolve_named_layout(name, m, &current());
      if (!std::holds_alternative<NamedLayout>(from_file)) continue;
      SCOPED_TRACE(name + " on " + m.id);
      const auto builtin = resolve_named_layout(name, m, nullptr);
      ASSERT_TRUE(std::holds_alternative<NamedLayout>(builtin)) << testing::error_of(builtin);
      EXPECT_EQ(std::get<NamedLayout>(builtin).counts, std::get<NamedLayout>(from_file).counts);
      ++compared;
    }
  }
  EXPECT_GE(compared, 30);
}

}  // namespace
}  // namespace gpupool::gpu
