// plan_change: keep what can stay, destroy the rest, create the missing.
#include <gtest/gtest.h>

#include "gpu_fixtures.h"
#include "gpupool/gpu/mig_planner.h"

namespace gpupool::gpu {
namespace {

using testing::error_of;
using testing::fixture_model;
using testing::ok;
using testing::value_of;

const GpuModel& a100() { return fixture_model("a100-sxm4-40gb"); }
ProfileCounts counts(const std::string& text) { return value_of(parse_profile_counts(text)); }

ProfileCounts counts_of(const Layout& layout) {
  ProfileCounts c;
  for (const PlacedInstance& i : layout) ++c[i.profile];
  return c;
}

TEST(MigPlannerChange, KeepsEverythingWhenNothingChanges) {
  const Layout current = value_of(plan(a100(), counts("3g.20gb=1,2g.10gb=1,1g.5gb=2")));
  const LayoutChange c = value_of(plan_change(a100(), current, counts_of(current)));
  EXPECT_EQ(c.keep, current);
  EXPECT_TRUE(c.destroy.empty());
  EXPECT_TRUE(c.create.empty());
  EXPECT_EQ(c.result, current);
}

TEST(MigPlannerChange, SevenSmallToOneMediumAndFourSmall) {
  const Layout current = value_of(plan(a100(), counts("1g.5gb=7")));
  const LayoutChange c = value_of(plan_change(a100(), current, counts("3g.20gb=1,1g.5gb=4")));
  EXPECT_EQ(c.keep, (Layout{{"1g.5gb", 0, 1}, {"1g.5gb", 1, 1}, {"1g.5gb", 2, 1}, {"1g.5gb", 3, 1}}));
  EXPECT_EQ(c.destroy, (Layout{{"1g.5gb", 4, 1}, {"1g.5gb", 5, 1}, {"1g.5gb", 6, 1}}));
  EXPECT_EQ(c.create, (Layout{{"3g.20gb", 4, 4}}));
  EXPECT_EQ(counts_of(c.result), counts("3g.20gb=1,1g.5gb=4"));
  EXPECT_TRUE(ok(check_layout(a100(), c.result)));
}

TEST(MigPlannerChange, DisjointLayoutsDestroyEverything) {
  const Layout whole = {{"7g.40gb", 0, 8}};
  LayoutChange c = value_of(plan_change(a100(), whole, counts("1g.5gb=7")));
  EXPECT_EQ(c.destroy, whole);
  EXPECT_TRUE(c.keep.empty());
  EXPECT_EQ(c.create.size(), 7U);
  EXPECT_EQ(c.result, c.create);

  const Layout halves = value_of(plan(a100(), counts("3g.20gb=2")));
  c = value_of(plan_change(a100(), halves, counts("2g.10gb=3,1g.5gb=1")));
  EXPECT_EQ(c.destroy, halves);
  EXPECT_TRUE(c.keep.empty());
  EXPECT_EQ(counts_of(c.create), counts("2g.10gb=3,1g.5gb=1"));

  c = value_of(plan_change(a100(), halves, {}));
  EXPECT_EQ(c.destroy, halves);
  EXPECT_TRUE(c.result.empty());
}

// Keeping the 2g.10gb where it is (slices 2-3) forces the 3g.20gb to 4 and
// the 1g.5gb at 5 out; planning from scratch would have moved the 2g.10gb.
TEST(MigPlannerChange, KeepsTheMostInstancesAnyValidLayoutAllows) {
  const Layout current = {{"1g.5gb", 0, 1}, {"2g.10gb", 2, 2}, {"1g.5gb", 5, 1}};
  ASSERT_TRUE(ok(check_layout(a100(), current)));
  const LayoutChange c = value_of(plan_change(a100(), current, counts("3g.20gb=1,2g.10gb=1,1g.5gb=2")));
  EXPECT_EQ(c.keep, (Layout{{"1g.5gb", 0, 1}, {"2g.10gb", 2, 2}}));
  EXPECT_EQ(c.destroy, (Layout{{"1g.5gb", 5, 1}}));
  EXPECT_EQ(c.create, (Layout{{"1g.5gb", 1, 1}, {"3g.20gb", 4, 4}}));
  EXPECT_EQ(c.result, (Layout{{"1g.5gb", 0, 1}, {"1g.5gb", 1, 1}, {"2g.10gb", 2, 2}, {"3g.20gb", 4, 4}}));
}

TEST(MigPlannerChange, ShrinkingKeepsTheFirstInstances) {
  const Layout current = value_of(plan(a100(), counts("2g.10gb=3,1g.5gb=1")));
  const LayoutChange c = value_of(plan_change(a100(), current, counts("2g.10gb=1")));
  EXPECT_EQ(c.keep, (Layout{{"2g.10gb", 0, 2}}));
  EXPECT_EQ(c.destroy.size(), 3U);
  EXPECT_TRUE(c.create.empty());
}

TEST(MigPlannerChange, IsDeterministicAndIgnoresInputOrder) {
  const Layout current = {{"1g.5gb", 6, 1}, {"2g.10gb", 2, 2}, {"1g.5gb", 0, 1}, {"1g.10gb", 4, 2}};
  Layout reversed(current.rbegin(), current.rend());
  const ProfileCounts wanted = counts("3g.20gb=1,1g.5gb=3");
  const LayoutChange a = value_of(plan_change(a100(), current, wanted));
  const LayoutChange b = value_of(plan_change(a100(), current, wanted));
  const LayoutChange r = value_of(plan_change(a100(), reversed, wanted));
  for (const LayoutChange* other : {&b, &r}) {
    EXPECT_EQ(a.keep, other->keep);
    EXPECT_EQ(a.destroy, other->destroy);
    EXPECT_EQ(a.create, other->create);
    EXPECT_EQ(a.result, other->result);
  }
  EXPECT_EQ(counts_of(a.result), wanted);
  EXPECT_TRUE(ok(check_layout(a100(), a.result)));
}

TEST(MigPlannerChange, Errors) {
  const Layout current = value_of(plan(a100(), counts("1g.5gb=7")));
  EXPECT_EQ(error_of(plan_change(a100(), current, counts("3g.20gb=3"))),
            "3 x 3g.20gb need 9 compute slices; A100-SXM4-40GB has 7");
  EXPECT_EQ(error_of(plan_change(a100(), {{"3g.20gb", 0, 4}, {"2g.10gb", 2, 2}}, counts("7g.40gb"))),
            "the current layout is invalid: instances 0 (3g.20gb at memory slices 0-3) and 1 (2g.10gb at memory "
            "slices 2-3) overlap");
  EXPECT_EQ(error_of(plan_change(fixture_model("t4"), {}, {})), "Tesla T4 does not support MIG");
}

}  // namespace
}  // namespace gpupool::gpu
