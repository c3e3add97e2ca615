#include <gtest/gtest.h>

#include <vector>

#include "gpupool/api/quantity.h"

namespace gpupool::api {
namespace {

struct ValidCase {
  const char* text;
  bool whole;
  bool negative;
  std::optional<std::int64_t> whole_value;
  std::optional<std::int64_t> milli;
};

TEST(Quantity, ValidTable) {
  const ValidCase cases[] = {
      {"0", true, false, 0, 0},
      {"4", true, false, 4, 4000},
      {"+4", true, false, 4, 4000},
      {"-1", true, true, -1, -1000},
      {"-0", true, false, 0, 0},
      {"007", true, false, 7, 7000},
      {"1.5", false, false, std::nullopt, 1500},
      {".5", false, false, std::nullopt, 500},
      {"1.", true, false, 1, 1000},
      {"2.0", true, false, 2, 2000},
      {"500m", false, false, std::nullopt, 500},
      {"1000m", true, false, 1, 1000},
      {"1500m", false, false, std::nullopt, 1500},
      {"1u", false, false, std::nullopt, 1},  // milli rounds up
      {"-1u", false, true, std::nullopt, 0},  // ceil of -0.001
      {"5n", false, false, std::nullopt, 1},
      {"2k", true, false, 2000, 2000000},
      {"3M", true, false, 3000000, 3000000000},
      {"1G", true, false, 1000000000, 1000000000000},
      {"1T", true, false, 1000000000000, 1000000000000000},
      {"1P", true, false, 1000000000000000, 1000000000000000000},
      {"1E", true, false, 1000000000000000000, std::nullopt},
      {"2Ki", true, false, 2048, 2048000},
      {"2Gi", true, false, 2147483648, 2147483648000},
      {"1.5Ki", true, false, 1536, 1536000},
      {"0.5Mi", true, false, 524288, 524288000},
      {"1Ti", true, false, 1099511627776, 1099511627776000},
      {"1Pi", true, false, 1125899906842624, 1125899906842624000},
      {"1Ei", true, false, 1152921504606846976, std::nullopt},
      {"16Ei", true, false, 9223372036854775807, std::nullopt},  // capped as Kubernetes caps
      {"1e3", true, false, 1000, 1000000},
      {"1E3", true, false, 1000, 1000000},
      {"1e+3", true, false, 1000, 1000000},
      {"1e-2", false, false, std::nullopt, 10},
      {"1.5e1", true, false, 15, 15000},
      {"1.e3", true, false, 1000, 1000000},
      {"0.0000000001", false, false, std::nullopt, 1},  // rounded up to 1n
      {"0.9999999999", true, false, 1, 1000},           // rounded up to a whole 1
      {"9223372036854775807", true, false, 9223372036854775807, std::nullopt},
      {"-9223372036854775808", true, true, std::numeric_limits<std::int64_t>::min(), std::nullopt},
      {"9223372036854775808", true, false, std::nullopt, std::nullopt},
      {"123456789012345678901234567890", true, false, std::nullopt, std::nullopt},
      {"1e2000000000", true, false, std::nullopt, std::nullopt},
      {"1e-2000000000", false, false, std::nullopt, 1},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const auto parsed = parse_quantity(c.text);
    ASSERT_TRUE(parsed) << parsed.error;
    const Quantity& q = *parsed.value;
    EXPECT_EQ(q.text(), c.text);
    EXPECT_EQ(q.is_whole_number(), c.whole);
    EXPECT_EQ(q.is_negative(), c.negative);
    EXPECT_EQ(q.whole_value(), c.whole_value);
    EXPECT_EQ(q.milli_value(), c.milli);
  }
}

TEST(Quantity, InvalidTable) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "quantities must match the regular expression"},
      {"4 GPUs", "quantities must match the regular expression"},
      {"1.2.3", "quantities must match the regular expression"},
      {".", "quantities must match the regular expression"},
      {"+", "quantities must match the regular expression"},
      {"-", "quantities must match the regular expression"},
      {"abc", "quantities must match the regular expression"},
      {" 1", "quantities must match the regular expression"},
      {"1 ", "quantities must match the regular expression"},
      {"1,5", "quantities must match the regular expression"},
      {"--1", "quantities must match the regular expression"},
      {"0x10", "quantities must match the regular expression"},
      {"1e1.5", "quantities must match the regular expression"},
      {"1e3.", "quantities must match the regular expression"},
      {"1e3m", "quantities must match the regular expression"},
      {"Gi", "quantities must match the regular expression"},
      {"1K", "unable to parse quantity's suffix"},
      {"1ki", "unable to parse quantity's suffix"},
      {"1mi", "unable to parse quantity's suffix"},
      {"1e", "unable to parse quantity's suffix"},
      {"1Mi3", "unable to parse quantity's suffix"},
      {"1Gi-", "unable to parse quantity's suffix"},
      {"1e99999999999", "unable to parse quantity's suffix"},
      {"1e2147483648", "unable to parse quantity's suffix"},
  };
  for (const auto& [text, reason] : cases) {
    SCOPED_TRACE(text);
    const auto parsed = parse_quantity(text);
    EXPECT_FALSE(parsed);
    EXPECT_NE(parsed.error.find(reason), std::string::npos) << parsed.error;
  }
}

Quantity q(std::string_view text) { return *parse_quantity(text).value; }

TEST(Quantity, CompareByValue) {
  EXPECT_EQ(compare(q("1Ki"), q("1024")), std::strong_ordering::equal);
  EXPECT_EQ(compare(q("1e3"), q("1k")), std::strong_ordering::equal);
  EXPECT_EQ(compare(q("1000m"), q("1")), std::strong_ordering::equal);
  EXPECT_EQ(compare(q("0"), q("-0")), std::strong_ordering::equal);
  EXPECT_EQ(compare(q("500m"), q("1")), std::strong_ordering::less);
  EXPECT_EQ(compare(q("1.5"), q("2")), std::strong_ordering::less);
  EXPECT_EQ(compare(q("-1"), q("0")), std::strong_ordering::less);
  EXPECT_EQ(compare(q("-2"), q("-1")), std::strong_ordering::less);
  EXPECT_EQ(compare(q("1E"), q("999P")), std::strong_ordering::greater);
  EXPECT_EQ(compare(q("1e2000000000"), q("9e1999999999")), std::strong_ordering::greater);
  EXPECT_EQ(compare(q("12"), q("1.2e1")), std::strong_ordering::equal);
  // Text equality is not value equality.
  EXPECT_NE(q("1"), q("1.0"));
  EXPECT_EQ(q("1"), q("1"));
}

TEST(Quantity, FromIntAndDefault) {
  EXPECT_EQ(Quantity().text(), "0");
  EXPECT_TRUE(Quantity().is_zero());
  EXPECT_EQ(Quantity::from_int(-32).text(), "-32");
  EXPECT_EQ(Quantity::from_int(-32).whole_value(), -32);
  EXPECT_EQ(Quantity::from_int(std::numeric_limits<std::int64_t>::min()).whole_value(),
            std::numeric_limits<std::int64_t>::min());
}

TEST(Quantity, MicroValuesBothWays) {
  struct Case {
    std::int64_t micro;
    const char* text;
  };
  for (const Case& c : std::vector<Case>{{0, "0"}, {4'000'000, "4"}, {2'500'000, "2500m"}, {428'571, "428571u"},
                                         {-1'000, "-1m"}, {1, "1u"}}) {
    const Quantity q = Quantity::from_micro(c.micro);
    EXPECT_EQ(q.text(), c.text);
    EXPECT_EQ(q.micro_value(), c.micro) << c.text;
  }
  EXPECT_EQ(q("2.5").micro_value(), 2'500'000);
  EXPECT_EQ(q("1n").micro_value(), 1) << "rounded up, as Kubernetes rounds";
  EXPECT_EQ(q("1Ei").micro_value(), std::nullopt) << "does not fit";
}

TEST(Quantity, ReparseOfTextIsEqual) {
  for (const char* text : {"1.5", "500m", "2Gi", "1e3", "+4", "-1", ".5", "16Ei", "0.0000000001"}) {
    const Quantity a = q(text);
    const auto b = parse_quantity(a.text());
    ASSERT_TRUE(b);
    EXPECT_EQ(*b.value, a);
    EXPECT_EQ(compare(*b.value, a), std::strong_ordering::equal);
  }
}

}  // namespace
}  // namespace gpupool::api
