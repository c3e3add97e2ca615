#include <gtest/gtest.h>

#include "gpupool/api/meta.h"

namespace gpupool::api {
namespace {

using namespace std::chrono;

TEST(Time, ParsesRFC3339) {
  const auto utc = Time::parse("2024-05-01T12:00:00Z");
  ASSERT_TRUE(utc);
  EXPECT_EQ(utc.value->time(), sys_days{2024y / May / 1} + 12h);
  const auto offset = Time::parse("2024-05-01T14:00:00+02:00");
  ASSERT_TRUE(offset);
  EXPECT_EQ(offset.value->time(), utc.value->time());
  EXPECT_NE(*offset.value, *utc.value);  // == compares the text
  const auto frac = Time::parse("2024-05-01T12:00:00.123456789-01:30");
  ASSERT_TRUE(frac);
  EXPECT_EQ(frac.value->time(), sys_days{2024y / May / 1} + 13h + 30min + 123456us);
  EXPECT_TRUE(Time::parse("0000-01-01T00:00:00Z"));
  EXPECT_TRUE(Time::parse("9999-12-31T23:59:59.999999999Z"));
}

TEST(Time, RejectsMalformed) {
  for (const char* text : {"", "yesterday", "2024-13-01T00:00:00Z", "2024-02-30T00:00:00Z", "2024-05-01 12:00:00Z",
                           "2024-05-01T12:00:00", "2024-05-01T12:00:60Z", "2024-05-01T24:00:00Z",
                           "2024-05-01T12:00:00.Z", "2024-05-01T12:00:00+0200", "2024-05-01t12:00:00z",
                           "2024-05-01T12:00:00Zjunk", "24-05-01T12:00:00Z"}) {
    const auto parsed = Time::parse(text);
    EXPECT_FALSE(parsed) << text;
    EXPECT_NE(parsed.error.find("must be an RFC 3339 date-time"), std::string::npos);
  }
}

TEST(Time, FormatsWholeSecondsUTC) {
  const Time t(sys_days{2024y / May / 1} + 12h + 3min + 4s + 500ms);
  EXPECT_EQ(t.text(), "2024-05-01T12:03:04Z");
  EXPECT_EQ(*Time::parse(t.text()).value, t);
  EXPECT_EQ(Time().text(), "1970-01-01T00:00:00Z");
  EXPECT_EQ(*Time::parse(Time().text()).value, Time());
}

}  // namespace
}  // namespace gpupool::api
