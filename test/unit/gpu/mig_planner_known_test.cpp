// Known answers on the fixture A100-SXM4-40GB and A30 (as nvidia-smi reports
// their profiles): which mixes plan, where they go, and the exact messages.
#include <gtest/gtest.h>

#include <algorithm>

#include "gpu_fixtures.h"
#include "gpupool/gpu/mig_planner.h"

namespace gpupool::gpu {
namespace {

using testing::error_of;
using testing::fixture_model;
using testing::ok;
using testing::value_of;

const GpuModel& a100() { return fixture_model("a100-sxm4-40gb"); }
const GpuModel& a30() { return fixture_model("a30-24gb"); }

ProfileCounts counts(const std::string& text) { return value_of(parse_profile_counts(text)); }

std::vector<std::string> formatted(const std::vector<EnumeratedLayout>& layouts, const GpuModel& m) {
  std::vector<std::string> out;
  for (const EnumeratedLayout& l : layouts) out.push_back(format_profile_counts(l.counts, &m));
  return out;
}

TEST(MigPlannerA100, PlacesAMixAroundTheFixedStarts) {
  // 3g.20gb at 0 leaves no start for the second 1g.5gb (slice 7 takes none), so it goes to 4.
  EXPECT_EQ(value_of(plan(a100(), counts("3g.20gb=1,2g.10gb=1,1g.5gb=2"))),
            (Layout{{"2g.10gb", 0, 2}, {"1g.5gb", 2, 1}, {"1g.5gb", 3, 1}, {"3g.20gb", 4, 4}}));
  EXPECT_EQ(value_of(plan(a100(), counts("4g.20gb,3g.20gb"))), (Layout{{"4g.20gb", 0, 4}, {"3g.20gb", 4, 4}}));
  EXPECT_EQ(value_of(plan(a100(), counts("1g.5gb=7"))).size(), 7U);
  EXPECT_EQ(value_of(plan(a100(), counts("2g.10gb=3,1g.10gb=1"))),
            (Layout{{"2g.10gb", 0, 2}, {"2g.10gb", 2, 2}, {"2g.10gb", 4, 2}, {"1g.10gb", 6, 2}}));
  EXPECT_EQ(value_of(plan(a100(), counts("1g.5gb+me,1g.5gb=6"))).size(), 7U);
  EXPECT_EQ(value_of(plan(a100(), counts("7g.40gb"))), (Layout{{"7g.40gb", 0, 8}}));
  EXPECT_TRUE(value_of(plan(a100(), {})).empty());
}

TEST(MigPlannerA100, Messages) {
  EXPECT_EQ(error_of(plan(a100(), counts("5g.40gb"))),
            "unknown profile 5g.40gb for A100-SXM4-40GB (known: 1g.5gb, 1g.5gb+me, 1g.10gb, 2g.10gb, 3g.20gb, "
            "4g.20gb, 7g.40gb)");
  EXPECT_EQ(error_of(plan(a100(), counts("5g.40gb,6g.40gb,1g.5gb"))),
            "unknown profiles 5g.40gb, 6g.40gb for A100-SXM4-40GB (known: 1g.5gb, 1g.5gb+me, 1g.10gb, 2g.10gb, "
            "3g.20gb, 4g.20gb, 7g.40gb)");
  EXPECT_EQ(error_of(plan(a100(), counts("3g.20gb=3"))), "3 x 3g.20gb need 9 compute slices; A100-SXM4-40GB has 7");
  EXPECT_EQ(error_of(plan(a100(), counts("1g.10gb=5"))), "5 x 1g.10gb need 10 memory slices; A100-SXM4-40GB has 8");
  EXPECT_EQ(error_of(plan(a100(), counts("1g.5gb+me=2"))), "2 x 1g.5gb+me exceed the maximum of 1 for A100-SXM4-40GB");
  EXPECT_EQ(error_of(plan(a100(), counts("4g.20gb=1,3g.20gb=1,1g.5gb=1"))),
            "4g.20gb + 3g.20gb + 1g.5gb need 8 compute slices; A100-SXM4-40GB has 7");
  EXPECT_EQ(error_of(plan(a100(), counts("3g.20gb=2,2g.10gb=1"))),
            "2 x 3g.20gb + 2g.10gb need 8 compute slices; A100-SXM4-40GB has 7");
  EXPECT_EQ(error_of(plan(a100(), counts("4g.20gb=1,1g.10gb=2,1g.5gb=1"))),
            "4g.20gb + 2 x 1g.10gb + 1g.5gb need 9 memory slices; A100-SXM4-40GB has 8");
  // Sums that fit, though only in another arrangement than the first tried.
  EXPECT_EQ(value_of(plan(a100(), counts("1g.10gb=3,1g.5gb=2"))),
            (Layout{{"1g.10gb", 0, 2}, {"1g.10gb", 2, 2}, {"1g.5gb", 4, 1}, {"1g.5gb", 5, 1}, {"1g.10gb", 6, 2}}));
  EXPECT_EQ(error_of(plan(a100(), {{"1g.5gb", -1}})), "count of 1g.5gb is negative (-1)");
  EXPECT_EQ(error_of(plan(fixture_model("t4"), counts("1g.5gb"))), "Tesla T4 does not support MIG");
  EXPECT_EQ(error_of(check_layout(fixture_model("t4"), {})), "Tesla T4 does not support MIG");
  EXPECT_TRUE(enumerate_maximal_layouts(fixture_model("t4")).empty());
  EXPECT_EQ(error_of(plan(fixture_model("mi300x"), {})), "AMD Instinct MI300X does not support MIG");
}

// On the A100 and A30 tables every request within the sums has a placement;
// the toy's 2g.10gb can only sit in the middle.
TEST(MigPlannerToy, SumsFitStartsDoNot) {
  const GpuModel& toy = fixture_model("toy-4gb");
  EXPECT_EQ(error_of(plan(toy, counts("2g.10gb,1g.5gb=2"))),
            "no placement fits 2g.10gb + 2 x 1g.5gb on Toy-4GB: at most 2 of the 3 instances fit together, e.g. "
            "2g.10gb + 1g.5gb (memory slices where each may start: 2g.10gb at 1; 1g.5gb at 0, 2)");
  EXPECT_EQ(value_of(plan(toy, counts("2g.10gb,1g.5gb"))), (Layout{{"1g.5gb", 0, 1}, {"2g.10gb", 1, 2}}));
  EXPECT_EQ(formatted(enumerate_maximal_layouts(toy), toy),
            (std::vector<std::string>{"4g.20gb=1", "2g.10gb=1,1g.5gb=1", "1g.5gb=2"}));
}

// The combinations of NVIDIA's first A100-40GB table (1g.5gb, 2g.10gb,
// 3g.20gb, 4g.20gb, 7g.40gb), worked out by hand.
TEST(MigPlannerA100, MaximalLayoutsOfTheClassicProfiles) {
  const GpuModel& classic = fixture_model("a100-classic");
  EXPECT_EQ(formatted(enumerate_maximal_layouts(classic), classic),
            (std::vector<std::string>{
                "7g.40gb=1",
                "4g.20gb=1,3g.20gb=1",
                "4g.20gb=1,2g.10gb=1,1g.5gb=1",
                "4g.20gb=1,1g.5gb=3",
                "3g.20gb=2",
                "3g.20gb=1,2g.10gb=2",
                "3g.20gb=1,2g.10gb=1,1g.5gb=2",
                "3g.20gb=1,1g.5gb=4",
                "2g.10gb=3,1g.5gb=1",
                "2g.10gb=2,1g.5gb=3",
                "2g.10gb=1,1g.5gb=5",
                "1g.5gb=7",
            }));
}

TEST(MigPlannerA100, MaximalLayoutsWithTheProfileVariants) {
  const std::vector<std::string> all = formatted(enumerate_maximal_layouts(a100()), a100());
  for (const char* known : {"7g.40gb=1", "4g.20gb=1,2g.10gb=1,1g.5gb=1", "4g.20gb=1,3g.20gb=1", "3g.20gb=2",
                            "2g.10gb=3,1g.5gb=1", "1g.5gb=7", "1g.10gb=4", "2g.10gb=3,1g.10gb=1",
                            "1g.5gb=6,1g.5gb+me=1", "3g.20gb=1,1g.10gb=2"}) {
    EXPECT_NE(std::find(all.begin(), all.end(), known), all.end()) << known;
  }
  // Not maximal: one more 1g.5gb fits (in another arrangement).
  for (const char* extendable : {"1g.10gb=1,1g.5gb=5", "4g.20gb=1,2g.10gb=1", "3g.20gb=1,2g.10gb=1,1g.5gb=1"}) {
    EXPECT_EQ(std::find(all.begin(), all.end(), extendable), all.end()) << extendable;
  }
  EXPECT_GT(all.size(), 12U);
}

TEST(MigPlannerA100, CheckLayout) {
  const GpuModel& m = a100();
  EXPECT_TRUE(ok(check_layout(m, {})));
  EXPECT_TRUE(ok(check_layout(m, {{"3g.20gb", 4, 4}, {"2g.10gb", 0, 2}, {"1g.5gb", 3, 1}})));
  EXPECT_EQ(error_of(check_layout(m, {{"1g.5gb", 0, 1}, {"5g.40gb", 2, 4}})),
            "instance 1: unknown profile 5g.40gb for A100-SXM4-40GB (known: 1g.5gb, 1g.5gb+me, 1g.10gb, 2g.10gb, "
            "3g.20gb, 4g.20gb, 7g.40gb)");
  EXPECT_EQ(error_of(check_layout(m, {{"2g.10gb", 6, 2}})),
            "instance 0: 2g.10gb cannot start at memory slice 6 on A100-SXM4-40GB (allowed: 0, 2, 4)");
  EXPECT_EQ(error_of(check_layout(m, {{"1g.5gb", 7, 1}})),
            "instance 0: 1g.5gb cannot start at memory slice 7 on A100-SXM4-40GB (allowed: 0, 1, 2, 3, 4, 5, 6)");
  EXPECT_EQ(error_of(check_layout(m, {{"2g.10gb", 0, 3}})), "instance 0: 2g.10gb occupies 2 memory slices, not 3");
  EXPECT_EQ(error_of(check_layout(m, {{"1g.5gb", 5, 1}, {"3g.20gb", 0, 4}, {"2g.10gb", 2, 2}})),
            "instances 1 (3g.20gb at memory slices 0-3) and 2 (2g.10gb at memory slices 2-3) overlap");
  EXPECT_EQ(error_of(check_layout(m, {{"1g.5gb", 2, 1}, {"1g.5gb", 2, 1}})),
            "instances 0 (1g.5gb at memory slice 2) and 1 (1g.5gb at memory slice 2) overlap");
  EXPECT_EQ(error_of(check_layout(m, {{"1g.5gb+me", 0, 1}, {"1g.5gb+me", 1, 1}})),
            "2 x 1g.5gb+me exceed the maximum of 1 for A100-SXM4-40GB");
  EXPECT_EQ(error_of(check_layout(m, {{"4g.20gb", 0, 4}, {"2g.10gb", 4, 2}, {"1g.5gb", 6, 1}, {"1g.10gb", 6, 2}})),
            "instances 2 (1g.5gb at memory slice 6) and 3 (1g.10gb at memory slices 6-7) overlap");
  EXPECT_TRUE(ok(check_layout(m, {{"4g.20gb", 0, 4}, {"2g.10gb", 4, 2}, {"1g.10gb", 6, 2}})));
}

TEST(MigPlannerA30, Plans) {
  EXPECT_EQ(value_of(plan(a30(), counts("2g.12gb=1,1g.6gb=2"))),
            (Layout{{"2g.12gb", 0, 2}, {"1g.6gb", 2, 1}, {"1g.6gb", 3, 1}}));
  EXPECT_EQ(value_of(plan(a30(), counts("2g.12gb+me,2g.12gb"))), (Layout{{"2g.12gb", 0, 2}, {"2g.12gb+me", 2, 2}}));
  EXPECT_EQ(value_of(plan(a30(), counts("1g.6gb=3,1g.6gb+me"))).size(), 4U);
  EXPECT_EQ(value_of(plan(a30(), counts("4g.24gb"))), (Layout{{"4g.24gb", 0, 4}}));
}

TEST(MigPlannerA30, Messages) {
  EXPECT_EQ(error_of(plan(a30(), counts("3g.12gb"))),
            "unknown profile 3g.12gb for A30 (known: 1g.6gb, 1g.6gb+me, 2g.12gb, 2g.12gb+me, 4g.24gb)");
  EXPECT_EQ(error_of(plan(a30(), counts("2g.12gb=3"))), "3 x 2g.12gb need 6 compute slices; A30 has 4");
  EXPECT_EQ(error_of(plan(a30(), counts("1g.6gb+me=2"))), "2 x 1g.6gb+me exceed the maximum of 1 for A30");
  EXPECT_EQ(error_of(plan(a30(), counts("4g.24gb,1g.6gb"))), "4g.24gb + 1g.6gb need 5 compute slices; A30 has 4");
  EXPECT_EQ(error_of(plan(a30(), counts("2g.12gb=2,1g.6gb"))), "2 x 2g.12gb + 1g.6gb need 5 compute slices; A30 has 4");
  EXPECT_EQ(error_of(plan(a30(), counts("2g.12gb+me=1,2g.12gb=1,1g.6gb+me=1"))),
            "2g.12gb + 2g.12gb+me + 1g.6gb+me need 5 compute slices; A30 has 4");
}

// 2g.12gb+me and 1g.6gb+me never together: the A30 has one JPEG decoder and
// one OFA (its 4g.24gb holds "1 JPEG / 1 OFA"), the media extensions each +me takes.
TEST(MigPlannerA30, MaximalLayouts) {
  EXPECT_EQ(formatted(enumerate_maximal_layouts(a30()), a30()),
            (std::vector<std::string>{
                "4g.24gb=1",
                "2g.12gb=2",
                "2g.12gb=1,2g.12gb+me=1",
                "2g.12gb=1,1g.6gb=2",
                "2g.12gb=1,1g.6gb=1,1g.6gb+me=1",
                "2g.12gb+me=1,1g.6gb=2",
                "1g.6gb=4",
                "1g.6gb=3,1g.6gb+me=1",
            }));
}

}  // namespace
}  // namespace gpupool::gpu
