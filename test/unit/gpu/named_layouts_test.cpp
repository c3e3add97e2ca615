// Named layouts: the built-in names, and how a mig-parted config's entries
// and profile spellings become one GPU's layout.
#include <gtest/gtest.h>

#include "gpu_fixtures.h"
#include "gpupool/gpu/named_layouts.h"

namespace gpupool::gpu {
namespace {

using testing::error_of;

const GpuModel& builtin(const char* id) {
  const GpuModel* m = Catalog::builtin().find(id);
  if (m == nullptr) throw std::runtime_error(std::string("no built-in model ") + id);
  return *m;
}

ProfileCounts counts(const std::variant<NamedLayout, PlanError>& r) {
  if (const auto* e = std::get_if<PlanError>(&r)) {
    ADD_FAILURE() << e->message;
    return {};
  }
  return std::get<NamedLayout>(r).counts;
}

struct Builtin {
  const char* layout;
  const char* model;
  ProfileCounts expected;
  const char* error;
};

TEST(NamedLayoutsBuiltin, NamesPerModel) {
  const std::vector<Builtin> cases = {
      {"all-1g.24gb+gfx", "rtx-pro-6000-blackwell-96gb", {{"1g.24gb+gfx", 4}}, ""},
      {"all-1g.24gb.gfx", "rtx-pro-6000-blackwell-96gb", {{"1g.24gb+gfx", 4}}, ""},  // NVIDIA's config name
      {"all-1g.24gb.me.all", "rtx-pro-6000-blackwell-96gb", {{"1g.24gb+me.all", 1}}, ""},
      {"all-1g.24gb-me", "rtx-pro-6000-blackwell-96gb", {{"1g.24gb-me", 4}}, ""},
      {"all-4g.96gb", "rtx-pro-6000-blackwell-96gb", {{"4g.96gb", 1}}, ""},
      {"all-1g.10gb.me", "a100-sxm4-80gb", {{"1g.10gb+me", 1}}, ""},
      // all-balanced takes plain profiles, never the -me or +gfx twins.
      {"all-balanced", "rtx-pro-6000-blackwell-96gb", {{"1g.24gb", 2}, {"2g.48gb", 1}}, ""},
      {"all-balanced", "b300-288gb", {{"1g.34gb", 2}, {"2g.67gb", 1}, {"3g.135gb", 1}}, ""},
      {"all-7g.141gb", "h200-141gb", {{"7g.141gb", 1}}, ""},
      {"all-1g.24gb.gfx", "a100-sxm4-80gb", {}, "all-1g.24gb.gfx: A100-SXM4-80GB has no profile 1g.24gb.gfx"},
      {"all-1g.24gb.me+all", "rtx-pro-6000-blackwell-96gb", {},
       "all-1g.24gb.me+all: RTX PRO 6000 Blackwell Server Edition has no profile 1g.24gb.me+all"},
      {"all-enabled", "t4-16gb", {}, "all-enabled: Tesla T4 does not support MIG"},
      {"some-layout", "a100-sxm4-80gb", {}, "some-layout: unknown layout name"},
  };
  for (const Builtin& c : cases) {
    SCOPED_TRACE(std::string(c.layout) + " on " + c.model);
    const auto r = resolve_named_layout(c.layout, builtin(c.model), nullptr);
    if (*c.error != '\0') {
      EXPECT_EQ(error_of(r), c.error);
    } else {
      EXPECT_EQ(counts(r), c.expected);
    }
  }
}

TEST(NamedLayoutsParted, SpellingsMapOntoTheModelsProfilesAndAddUp) {
  const MigPartedConfig parted = parse_mig_parted(R"(
version: v1
mig-configs:
  spelled:
    - devices: all
      mig-enabled: true
      mig-devices: {"3c.3g.40gb": 1, "1g.10gb": 2, "01g.10gb": 1, "2g.20gb": 0}
  last-wins:
    - {devices: all, mig-enabled: true, mig-devices: {"7g.80gb": 1}}
    - {devices: [1], mig-enabled: false}
    - {devices: all, device-filter: "0x20B010DE", mig-enabled: true, mig-devices: {"1g.5gb": 7}}
)",
                                                  "hand.yaml");
  const GpuModel& a100 = builtin("a100-sxm4-80gb");
  // "3c.3g.40gb" is the 3g.40gb GPU instance; "01g.10gb" is 1g.10gb; zero counts drop out.
  EXPECT_EQ(counts(resolve_named_layout("spelled", a100, &parted)), (ProfileCounts{{"3g.40gb", 1}, {"1g.10gb", 3}}));
  // The last entry that applies to a GPU is the one mig-parted leaves in place.
  EXPECT_EQ(counts(resolve_named_layout("last-wins", a100, &parted, {0, std::nullopt, std::nullopt})),
            (ProfileCounts{{"7g.80gb", 1}}));
  const auto gpu1 = resolve_named_layout("last-wins", a100, &parted, {1, std::nullopt, std::nullopt});
  ASSERT_TRUE(std::holds_alternative<NamedLayout>(gpu1)) << error_of(gpu1);
  EXPECT_FALSE(std::get<NamedLayout>(gpu1).mig_enabled);
  EXPECT_EQ(counts(resolve_named_layout("last-wins", builtin("a100-sxm4-40gb"), &parted, {1, 0x20B0, std::nullopt})),
            (ProfileCounts{{"1g.5gb", 7}}));
  // A config of the file shadows the built-in meaning of its name; other names keep theirs.
  EXPECT_TRUE(is_layout_name("spelled", &parted));
  EXPECT_FALSE(is_layout_name("spelled", nullptr));
  EXPECT_TRUE(is_layout_name("all-balanced", &parted));
  EXPECT_FALSE(is_layout_name("balanced", &parted));
}

}  // namespace
}  // namespace gpupool::gpu
