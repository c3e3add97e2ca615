#include "gpupool/kube/micro_time.h"

#include <gtest/gtest.h>

#include "gpupool/common/rfc3339.h"

namespace gpupool::kube {
namespace {

using namespace std::chrono;

TEST(MicroTime, FormatsUtcWithSixDigitsAndTruncates) {
  const auto t = sys_days{year{2024} / 5 / 1} + hours(12) + minutes(3) + seconds(4) + nanoseconds(123456789);
  EXPECT_EQ(format_micro_time(t), "2024-05-01T12:03:04.123456Z");
  EXPECT_EQ(format_time(t), "2024-05-01T12:03:04Z");
  EXPECT_EQ(format_micro_time(sys_days{year{1970} / 1 / 1}), "1970-01-01T00:00:00.000000Z");
  EXPECT_EQ(format_micro_time(sys_days{year{2024} / 12 / 31} + hours(23) + minutes(59) + seconds(59) + nanoseconds(999999999)),
            "2024-12-31T23:59:59.999999Z");
}

TEST(MicroTime, RoundTripsThroughTheParser) {
  const auto now = time_point_cast<microseconds>(system_clock::now());
  auto parsed = parse_rfc3339(format_micro_time(now));
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, now);
}

}  // namespace
}  // namespace gpupool::kube
