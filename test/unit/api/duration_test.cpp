#include <gtest/gtest.h>

#include <limits>

#include "gpupool/api/duration.h"

namespace gpupool::api {
namespace {

using namespace std::chrono_literals;
using std::chrono::nanoseconds;

TEST(Duration, ValidTable) {
  const std::pair<const char*, nanoseconds> cases[] = {
      {"0", 0ns},
      {"+0", 0ns},
      {"-0", 0ns},
      {"0s", 0ns},
      {"300ms", 300ms},
      {"1h30m", 90min},
      {"2h45m10.5s", 2h + 45min + 10500ms},
      {"-1.5h", -90min},
      {"+5s", 5s},
      {"1ns", 1ns},
      {"1us", 1us},
      {"1\u00B5s", 1us},
      {"1\u03BCs", 1us},
      {".5s", 500ms},
      {"5.s", 5s},
      {"1.0000000001s", 1s},  // beyond nanoseconds: truncated, as Go
      {"10m", 10min},
      {"1h1h", 2h},
      {"2562047h47m16.854775807s", nanoseconds(std::numeric_limits<std::int64_t>::max())},
      {"-2562047h47m16.854775808s", nanoseconds(std::numeric_limits<std::int64_t>::min())},
  };
  for (const auto& [text, want] : cases) {
    SCOPED_TRACE(text);
    const auto parsed = parse_duration(text);
    ASSERT_TRUE(parsed) << parsed.error;
    EXPECT_EQ(parsed.value->count(), want.count());
  }
}

TEST(Duration, InvalidTable) {
  const std::pair<const char*, const char*> cases[] = {
      {"", R"(time: invalid duration "")"},
      {"-", R"(time: invalid duration "-")"},
      {"1", R"(time: missing unit in duration "1")"},
      {"1.5", R"(time: missing unit in duration "1.5")"},
      {"1d", R"(time: unknown unit "d" in duration "1d")"},
      {"1h 30m", R"(time: unknown unit "h " in duration "1h 30m")"},
      {"5 minutes", R"(time: unknown unit " minutes" in duration "5 minutes")"},
      {"s", R"(time: invalid duration "s")"},
      {".s", R"(time: invalid duration ".s")"},
      {"1s.", R"(time: invalid duration "1s.")"},
      {"2562048h", R"(time: invalid duration "2562048h")"},
      {"9223372036854775808ns", R"(time: invalid duration "9223372036854775808ns")"},
      {"99999999999999999999s", R"(time: invalid duration "99999999999999999999s")"},
      {"1h-1m", R"(time: unknown unit "h-" in duration "1h-1m")"},
  };
  for (const auto& [text, reason] : cases) {
    SCOPED_TRACE(text);
    const auto parsed = parse_duration(text);
    EXPECT_FALSE(parsed);
    EXPECT_EQ(parsed.error, reason);
  }
}

TEST(Duration, FormatsAsGo) {
  EXPECT_EQ(format_duration(0ns), "0s");
  EXPECT_EQ(format_duration(1ns), "1ns");
  EXPECT_EQ(format_duration(1500ns), "1.5\u00B5s");
  EXPECT_EQ(format_duration(300ms), "300ms");
  EXPECT_EQ(format_duration(1s), "1s");
  EXPECT_EQ(format_duration(90s), "1m30s");
  EXPECT_EQ(format_duration(-90s), "-1m30s");
  EXPECT_EQ(format_duration(90min), "1h30m0s");
  EXPECT_EQ(format_duration(2h + 45min + 10500ms), "2h45m10.5s");
  EXPECT_EQ(format_duration(nanoseconds(std::numeric_limits<std::int64_t>::min())), "-2562047h47m16.854775808s");
}

TEST(Duration, FormatThenParseIsIdentity) {
  for (std::int64_t n : {std::int64_t{0}, std::int64_t{1}, std::int64_t{999}, std::int64_t{1001}, std::int64_t{123456789},
                         std::int64_t{86400000000000}, std::int64_t{-7}, std::numeric_limits<std::int64_t>::max(),
                         std::numeric_limits<std::int64_t>::min()}) {
    const auto parsed = parse_duration(format_duration(nanoseconds(n)));
    ASSERT_TRUE(parsed) << n;
    EXPECT_EQ(parsed.value->count(), n);
  }
}

TEST(Duration, ValueTypeKeepsText) {
  const auto d = Duration::parse("10m");
  ASSERT_TRUE(d);
  EXPECT_EQ(d.value->text(), "10m");
  EXPECT_EQ(d.value->value(), 10min);
  EXPECT_NE(*d.value, Duration(10min));  // "10m" vs "10m0s"
  EXPECT_EQ(Duration(10min).text(), "10m0s");
  EXPECT_EQ(Duration().text(), "0s");
  EXPECT_THROW(Duration::literal("ten minutes"), std::invalid_argument);
  EXPECT_FALSE(Duration::parse("1d"));
}

}  // namespace
}  // namespace gpupool::api
