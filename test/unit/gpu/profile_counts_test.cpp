// "3g.40gb=1,2g.20gb=1,1g.10gb=2" <-> ProfileCounts.
#include <gtest/gtest.h>

#include "gpu_fixtures.h"
#include "gpupool/gpu/mig_planner.h"

namespace gpupool::gpu {
namespace {

using testing::error_of;
using testing::value_of;

TEST(MigPlannerParse, Forms) {
  EXPECT_EQ(value_of(parse_profile_counts("3g.40gb=1,2g.20gb=1,1g.10gb=2")),
            (ProfileCounts{{"3g.40gb", 1}, {"2g.20gb", 1}, {"1g.10gb", 2}}));
  EXPECT_EQ(value_of(parse_profile_counts("3g.40gb")), (ProfileCounts{{"3g.40gb", 1}}));
  EXPECT_EQ(value_of(parse_profile_counts(" 3g.40gb = 2 ,\t1g.10gb+me ")),
            (ProfileCounts{{"3g.40gb", 2}, {"1g.10gb+me", 1}}));
  EXPECT_EQ(value_of(parse_profile_counts("1g.10gb=2,1g.10gb=1,1g.10gb")), (ProfileCounts{{"1g.10gb", 4}}));
  EXPECT_EQ(value_of(parse_profile_counts("1g.10gb=0,2g.20gb=1")), (ProfileCounts{{"2g.20gb", 1}}));
  EXPECT_EQ(value_of(parse_profile_counts("1g.10gb=007")), (ProfileCounts{{"1g.10gb", 7}}));
  EXPECT_TRUE(value_of(parse_profile_counts("")).empty());
  EXPECT_TRUE(value_of(parse_profile_counts("  ")).empty());
}

TEST(MigPlannerParse, Errors) {
  EXPECT_EQ(error_of(parse_profile_counts("3g.40gb=1,,1g.10gb")), "item 2 of \"3g.40gb=1,,1g.10gb\" is empty");
  EXPECT_EQ(error_of(parse_profile_counts("3g.40gb=1,")), "item 2 of \"3g.40gb=1,\" is empty");
  EXPECT_EQ(error_of(parse_profile_counts(",3g.40gb")), "item 1 of \",3g.40gb\" is empty");
  EXPECT_EQ(error_of(parse_profile_counts("1g.10gb=x")), "item 1 (\"1g.10gb=x\"): count must be a non-negative integer");
  EXPECT_EQ(error_of(parse_profile_counts("1g.10gb=-1")), "item 1 (\"1g.10gb=-1\"): count must be a non-negative integer");
  EXPECT_EQ(error_of(parse_profile_counts("1g.10gb=")), "item 1 (\"1g.10gb=\"): count must be a non-negative integer");
  EXPECT_EQ(error_of(parse_profile_counts("1g.10gb=1.5")), "item 1 (\"1g.10gb=1.5\"): count must be a non-negative integer");
  EXPECT_EQ(error_of(parse_profile_counts("1g.10gb=1=2")), "item 1 (\"1g.10gb=1=2\"): count must be a non-negative integer");
  EXPECT_EQ(error_of(parse_profile_counts("2g.20gb=1, =2")), "item 2 (\"=2\"): missing profile name before '='");
  EXPECT_EQ(error_of(parse_profile_counts("3g 40gb=1")), "item 1 (\"3g 40gb=1\"): \"3g 40gb\" is not a profile name");
  EXPECT_EQ(error_of(parse_profile_counts("1g.10gb=99999999999")),
            "item 1 (\"1g.10gb=99999999999\"): count must be a non-negative integer");
  EXPECT_EQ(error_of(parse_profile_counts("1g.10gb=600,1g.10gb=600")), "item 2 (\"1g.10gb=600\"): count is too large");
}

TEST(MigPlannerParse, FormatLargestFirst) {
  const ProfileCounts c = {{"1g.10gb", 2}, {"2g.20gb", 1}, {"3g.40gb", 1}, {"1g.10gb+me", 1}, {"1g.20gb", 1}};
  EXPECT_EQ(format_profile_counts(c), "3g.40gb=1,2g.20gb=1,1g.20gb=1,1g.10gb=2,1g.10gb+me=1");
  EXPECT_EQ(value_of(parse_profile_counts(format_profile_counts(c))), c);
  EXPECT_EQ(format_profile_counts({}), "");
  EXPECT_EQ(format_profile_counts({{"1g.5gb", 0}, {"7g.40gb", 1}}), "7g.40gb=1");
  // Names that are not "<n>g.<m>gb" come last, by name.
  EXPECT_EQ(format_profile_counts({{"zeta", 1}, {"alpha", 2}, {"1g.5gb", 1}}), "1g.5gb=1,alpha=2,zeta=1");
  // With a model its own numbers decide: 1g.10gb (2 memory slices) before 1g.5gb.
  const GpuModel& a100 = testing::fixture_model("a100-sxm4-40gb");
  EXPECT_EQ(format_profile_counts({{"1g.5gb", 2}, {"1g.10gb", 1}, {"1g.5gb+me", 1}, {"4g.20gb", 1}}, &a100),
            "4g.20gb=1,1g.10gb=1,1g.5gb=2,1g.5gb+me=1");
}

}  // namespace
}  // namespace gpupool::gpu
