// The MIG-capable models NVIDIA publishes configs and profile tables for
// (RTX PRO 6000 Blackwell, GB200, GB300, B300, H20, H100 96GB) as the
// built-in catalog holds them, and the nominal sizes fixed for issue 12.
#include <gtest/gtest.h>

#include "gpu_fixtures.h"
#include "gpupool/gpu/catalog.h"
#include "gpupool/gpu/mig_planner.h"
#include "gpupool/gpu/mig_profile_name.h"

namespace gpupool::gpu {
namespace {

struct NewModel {
  const char* id;
  std::vector<std::string> names;      // as NVML reports them, display name first
  std::vector<std::uint32_t> pci_ids;
  int compute_slices;
  int memory_slices;
  std::vector<std::string> profiles;   // every profile, catalog order
};

TEST(CatalogNewModels, ArePresentFindableAndComplete) {
  const std::vector<NewModel> cases = {
      {"rtx-pro-6000-blackwell-96gb",
       {"NVIDIA RTX PRO 6000 Blackwell Server Edition", "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
        "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition"},
       {0x2BB5, 0x2BB1, 0x2BB4},
       4,
       12,
       {"1g.24gb", "1g.24gb+me", "1g.24gb+gfx", "1g.24gb+me.all", "1g.24gb-me", "2g.48gb", "2g.48gb+gfx",
        "2g.48gb+me.all", "2g.48gb-me", "4g.96gb", "4g.96gb+gfx"}},
      {"gb200-186gb", {"NVIDIA GB200"}, {0x2941}, 7, 8,
       {"1g.23gb", "1g.23gb+me", "1g.47gb", "2g.47gb", "3g.93gb", "4g.93gb", "7g.186gb"}},
      {"gb300-288gb", {"NVIDIA GB300"}, {0x31C2}, 7, 8,
       {"1g.35gb", "1g.35gb+me", "1g.70gb", "2g.70gb", "3g.139gb", "4g.139gb", "7g.278gb"}},
      {"b300-288gb", {"NVIDIA B300 SXM6 AC"}, {0x3182}, 7, 8,
       {"1g.34gb", "1g.34gb+me", "1g.67gb", "2g.67gb", "3g.135gb", "4g.135gb", "7g.269gb"}},
      {"h20-96gb", {"NVIDIA H20"}, {0x2329}, 7, 8,
       {"1g.12gb", "1g.12gb+me", "1g.24gb", "2g.24gb", "3g.48gb", "4g.48gb", "7g.96gb"}},
  };
  const Catalog& c = Catalog::builtin();
  for (const NewModel& want : cases) {
    SCOPED_TRACE(want.id);
    const GpuModel* m = c.find(want.id);
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->display_name, want.names.front());
    EXPECT_EQ(m->names, want.names);
    EXPECT_EQ(m->pci_device_ids, want.pci_ids);
    for (const std::string& n : want.names) EXPECT_EQ(c.find(n), m) << n;
    for (std::uint32_t id : want.pci_ids) EXPECT_EQ(c.find_by_pci_device_id(Vendor::nvidia, id), m);
    EXPECT_EQ(m->architecture, want.id[0] == 'h' ? "Hopper" : "Blackwell");
    ASSERT_TRUE(m->mig.has_value());
    EXPECT_EQ(m->mig->compute_slices, want.compute_slices);
    EXPECT_EQ(m->mig->memory_slices, want.memory_slices);
    std::vector<std::string> names;
    for (const MigProfile& p : m->mig->profiles) names.push_back(p.name);
    EXPECT_EQ(names, want.profiles);
    EXPECT_GE(m->sources.size(), 3U);
    // The whole GPU as one instance uses every slice and fits in the card.
    const MigProfile& whole = m->mig->profiles.back();
    EXPECT_EQ(whole.memory_slices, m->mig->memory_slices);
    EXPECT_LT(whole.memory_mib, m->memory_mib);
  }
}

// The placements NVIDIA's RTX PRO 6000 -lgipp prints: 12 units, 1g takes 3.
TEST(CatalogNewModels, RtxPro6000PlacementsAndLayouts) {
  const GpuModel& m = *Catalog::builtin().find("rtx-pro-6000-blackwell-96gb");
  EXPECT_EQ(m.mig->profile("1g.24gb-me")->placements,
            (std::vector<MigPlacement>{{0, 3}, {3, 3}, {6, 3}, {9, 3}}));
  EXPECT_EQ(m.mig->profile("2g.48gb+gfx")->placements, (std::vector<MigPlacement>{{0, 6}, {6, 6}}));
  EXPECT_EQ(m.mig->profile("4g.96gb+gfx")->placements, (std::vector<MigPlacement>{{0, 12}}));
  EXPECT_EQ(m.mig->profile("1g.24gb+me.all")->profile_id, 65);
  EXPECT_EQ(m.mig->profile("1g.24gb-me")->profile_id, 67);
  EXPECT_EQ(m.mig->profile("1g.24gb")->memory_mib, 24192);  // 23.62 GiB, the 1g.24gb size CUDA reports
  // The mixed layout of the published walk-through: 2g.48gb at 0, 1g.24gb at 6 and 9.
  EXPECT_EQ(testing::value_of(plan(m, {{"2g.48gb", 1}, {"1g.24gb", 2}})),
            (Layout{{"2g.48gb", 0, 6}, {"1g.24gb", 6, 3}, {"1g.24gb", 9, 3}}));
  EXPECT_EQ(testing::error_of(plan(m, {{"2g.48gb", 1}, {"1g.24gb+gfx", 3}})),
            "2g.48gb + 3 x 1g.24gb+gfx need 5 compute slices; RTX PRO 6000 Blackwell Server Edition has 4");
}

// A GPU has one set of media extensions: at most one +me or +me.all instance.
TEST(CatalogNewModels, OneInstancePerGpuHoldsTheMediaExtensions) {
  const GpuModel& rtx = *Catalog::builtin().find("rtx-pro-6000-blackwell-96gb");
  EXPECT_TRUE(rtx.mig->profile("1g.24gb+me")->media_extensions);
  EXPECT_TRUE(rtx.mig->profile("2g.48gb+me.all")->media_extensions);
  EXPECT_FALSE(rtx.mig->profile("1g.24gb-me")->media_extensions);
  EXPECT_FALSE(rtx.mig->profile("1g.24gb+gfx")->media_extensions);
  EXPECT_FALSE(rtx.mig->profile("1g.24gb")->media_extensions);
  struct Case {
    const char* model;
    ProfileCounts wanted;
    std::string error;  // empty: fits
  };
  const std::vector<Case> cases = {
      {"rtx-pro-6000-blackwell-96gb", {{"1g.24gb+me.all", 1}, {"1g.24gb-me", 3}}, ""},
      {"rtx-pro-6000-blackwell-96gb", {{"1g.24gb+me", 1}, {"1g.24gb+me.all", 1}},
       "1g.24gb+me + 1g.24gb+me.all would hold the media extensions 2 times; RTX PRO 6000 Blackwell Server Edition "
       "has one set, so at most one instance per GPU may be +me or +me.all"},
      {"rtx-pro-6000-blackwell-96gb", {{"2g.48gb+me.all", 1}, {"1g.24gb+me", 1}},
       "2g.48gb+me.all + 1g.24gb+me would hold the media extensions 2 times; RTX PRO 6000 Blackwell Server Edition "
       "has one set, so at most one instance per GPU may be +me or +me.all"},
      {"a30-24gb", {{"1g.6gb+me", 1}, {"2g.12gb+me", 1}},
       "2g.12gb+me + 1g.6gb+me would hold the media extensions 2 times; A30 has one set, so at most one instance per "
       "GPU may be +me or +me.all"},
      {"a30-24gb", {{"1g.6gb+me", 1}, {"2g.12gb", 1}, {"1g.6gb", 1}}, ""},
  };
  for (const auto& c : cases) {
    const GpuModel& m = *Catalog::builtin().find(c.model);
    const auto result = plan(m, c.wanted);
    if (c.error.empty()) {
      EXPECT_TRUE(std::holds_alternative<Layout>(result)) << c.model << ": " << testing::error_of(result);
    } else {
      EXPECT_EQ(testing::error_of(result), c.error) << c.model;
    }
  }
  // No maximal layout the planner enumerates holds two.
  for (const auto& e : enumerate_maximal_layouts(rtx)) {
    int media = 0;
    for (const auto& inst : e.placement) media += rtx.mig->profile(inst.profile)->media_extensions ? 1 : 0;
    EXPECT_LE(media, 1);
  }
}

TEST(CatalogNewModels, H100NinetySixIsFoundByPciId) {
  EXPECT_EQ(Catalog::builtin().find_by_pci_device_id(Vendor::nvidia, 0x233D), Catalog::builtin().find("gh200-96gb"));
}

// Nominal sizes: H200's 7g.141gb is the 140.00 GiB current drivers print.
TEST(CatalogNewModels, H200WholeGpuIs140GiB) {
  const GpuModel& m = *Catalog::builtin().find("h200-141gb");
  EXPECT_EQ(m.mig->profile("7g.141gb")->memory_mib, 143360);
  EXPECT_EQ(m.mig->profile("2g.35gb")->memory_mib, 33024);
  EXPECT_EQ(m.mig->profile("3g.71gb")->memory_mib, 71168);
}

// Every profile name of the built-in catalog is a GPU-instance name in
// NVIDIA's grammar, written canonically, whose <g> is its compute slices.
TEST(CatalogNewModels, EveryBuiltinProfileNameFollowsTheGrammar) {
  for (const GpuModel& m : Catalog::builtin().models()) {
    if (!m.mig) continue;
    for (const MigProfile& p : m.mig->profiles) {
      SCOPED_TRACE(m.id + " " + p.name);
      const auto parsed = parse_mig_profile_name(p.name);
      ASSERT_TRUE(std::holds_alternative<MigProfileName>(parsed)) << std::get<std::string>(parsed);
      const MigProfileName& n = std::get<MigProfileName>(parsed);
      EXPECT_TRUE(n.is_gpu_instance());
      EXPECT_EQ(n.gpu_slices, p.compute_slices);
      EXPECT_EQ(n.canonical(), p.name);
    }
  }
}

}  // namespace
}  // namespace gpupool::gpu
