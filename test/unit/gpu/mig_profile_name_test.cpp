// NVIDIA's MIG profile name grammar, as mig-parted reads it.
#include <gtest/gtest.h>

#include "gpu_fixtures.h"
#include "gpupool/gpu/mig_profile_name.h"

namespace gpupool::gpu {
namespace {

struct Accepted {
  const char* name;
  int c, g, gb;
  std::vector<std::string> attributes, excluded;
  const char* canonical;
};

TEST(MigProfileName, AcceptsNvidiasWholeGrammar) {
  const std::vector<Accepted> cases = {
      {"1g.10gb", 1, 1, 10, {}, {}, "1g.10gb"},
      {"7g.141gb", 7, 7, 141, {}, {}, "7g.141gb"},
      {"1g.10gb+me", 1, 1, 10, {"me"}, {}, "1g.10gb+me"},
      {"1g.24gb+me.all", 1, 1, 24, {"me.all"}, {}, "1g.24gb+me.all"},
      {"2g.48gb+me.all", 2, 2, 48, {"me.all"}, {}, "2g.48gb+me.all"},
      {"1g.24gb+gfx", 1, 1, 24, {"gfx"}, {}, "1g.24gb+gfx"},
      {"4g.96gb+gfx", 4, 4, 96, {"gfx"}, {}, "4g.96gb+gfx"},
      {"1g.24gb-me", 1, 1, 24, {}, {"me"}, "1g.24gb-me"},
      {"2g.48gb-me", 2, 2, 48, {}, {"me"}, "2g.48gb-me"},
      {"1g.5gb+me,gfx", 1, 1, 5, {"gfx", "me"}, {}, "1g.5gb+gfx,me"},  // comma-separated, sorted
      {"1c.3g.40gb", 1, 3, 40, {}, {}, "1c.3g.40gb"},
      {"2c.7g.80gb", 2, 7, 80, {}, {}, "2c.7g.80gb"},
      {"1c.1g.5gb+me", 1, 1, 5, {"me"}, {}, "1g.5gb+me"},  // c == g is the GPU instance itself
      {"3c.3g.40gb", 3, 3, 40, {}, {}, "3g.40gb"},
      {"01g.05gb", 1, 1, 5, {}, {}, "1g.5gb"},  // numbers read as Go's Atoi reads them
      {"1g.24gb+ME", 1, 1, 24, {"ME"}, {}, "1g.24gb+ME"},
  };
  for (const Accepted& c : cases) {
    SCOPED_TRACE(c.name);
    const auto parsed = parse_mig_profile_name(c.name);
    ASSERT_TRUE(std::holds_alternative<MigProfileName>(parsed)) << std::get<std::string>(parsed);
    const MigProfileName& n = std::get<MigProfileName>(parsed);
    EXPECT_EQ(n.compute_slices, c.c);
    EXPECT_EQ(n.gpu_slices, c.g);
    EXPECT_EQ(n.memory_gb, c.gb);
    EXPECT_EQ(n.attributes, c.attributes);
    EXPECT_EQ(n.excluded_attributes, c.excluded);
    EXPECT_EQ(n.canonical(), c.canonical);
    EXPECT_EQ(n.is_gpu_instance(), c.c == c.g);
    EXPECT_EQ(n.is_plain(), c.attributes.empty() && c.excluded.empty());
    // The canonical name reads back as the same profile.
    EXPECT_EQ(std::get<MigProfileName>(parse_mig_profile_name(n.canonical())), n);
  }
}

TEST(MigProfileName, SpellingsOfOneProfileCompareEqual) {
  const auto name = [](const char* s) { return std::get<MigProfileName>(parse_mig_profile_name(s)); };
  EXPECT_EQ(name("3c.3g.40gb"), name("3g.40gb"));
  EXPECT_EQ(name("1g.5gb+me,gfx"), name("1g.5gb+gfx,me"));
  EXPECT_NE(name("1g.24gb"), name("1g.24gb-me"));
  EXPECT_NE(name("1g.24gb+me"), name("1g.24gb-me"));
  EXPECT_NE(name("1g.24gb+me"), name("1g.24gb+me.all"));
  EXPECT_NE(name("1c.3g.40gb"), name("3g.40gb"));
}

TEST(MigProfileName, RefusesWithTheReason) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"", "is empty"},
      {"big", "expected <g>g.<gb>gb or <c>c.<g>g.<gb>gb before the attributes"},
      {"1g", "expected <g>g.<gb>gb or <c>c.<g>g.<gb>gb before the attributes"},
      {"1g.5", "expected '<n>gb', got \"5\""},
      {"1x.5gb", "expected '<n>g', got \"1x\""},
      {"g.5gb", "malformed number in '<n>g' (\"g\")"},
      {"1g.gb", "malformed number in '<n>gb' (\"gb\")"},
      {"1c.2c.3g.4gb", "expected '<n>g', got \"2c\""},
      {"1x.3g.40gb", "expected '<n>c', got \"1x\""},
      {" 1g.5gb", "leading or trailing spaces in '<n>g'"},
      {"1g.5gb ", "leading or trailing spaces in '<n>gb'"},
      {"1g.24gb+gfx-me", "has both '+' and '-' attributes"},
      {"1g.5gb+", "empty attribute"},
      {"1g.5gb-", "empty attribute"},
      {"1g.5gb+me,", "empty attribute"},
      {"1g.5gb+me,me", "attribute \"me\" appears twice"},
      {"1g.5gb++me", "attribute \"+me\" has a character other than letters, digits and '.'"},
      {"1g.24gb+me+gfx", "attribute \"me+gfx\" has a character other than letters, digits and '.'"},
      {"1g.5gb+m_e", "attribute \"m_e\" has a character other than letters, digits and '.'"},
      {"1g.5gb+1me", "attribute \"1me\" begins with a digit"},
      {"1g.5gb+.me", "attribute \".me\" begins or ends with a dot"},
      {"1g.5gb+me.", "attribute \"me.\" begins or ends with a dot"},
      {"1g.5gb+ me", "attribute \" me\" has leading or trailing spaces"},
      {"-1g.5gb", "expected <g>g.<gb>gb or <c>c.<g>g.<gb>gb before the attributes"},
  };
  for (const auto& [name, reason] : cases) {
    SCOPED_TRACE(name);
    const auto parsed = parse_mig_profile_name(name);
    ASSERT_TRUE(std::holds_alternative<std::string>(parsed)) << "accepted";
    EXPECT_EQ(std::get<std::string>(parsed), reason);
  }
}

}  // namespace
}  // namespace gpupool::gpu
