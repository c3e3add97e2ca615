#include "gpupool/kube/backoff.h"

#include <gtest/gtest.h>

namespace gpupool::kube {
namespace {

using namespace std::chrono_literals;
using ms = std::chrono::milliseconds;

TEST(Backoff, GrowsExponentiallyWithinJitterBounds) {
  Backoff b(100ms, 10s, 42);
  ms expected = 100ms;
  for (int i = 0; i < 6; ++i) {
    auto d = std::chrono::duration_cast<ms>(b.next());
    EXPECT_GE(d, expected / 2) << "attempt " << i;
    EXPECT_LT(d, expected) << "attempt " << i;
    expected *= 2;
  }
}

TEST(Backoff, IsCapped) {
  Backoff b(100ms, 1s, 7);
  for (int i = 0; i < 100; ++i) b.next();
  for (int i = 0; i < 20; ++i) {
    auto d = b.next();
    EXPECT_LT(d, 1s);
    EXPECT_GE(d, 500ms);
  }
}

TEST(Backoff, ResetStartsOver) {
  Backoff b(100ms, 10s, 1);
  for (int i = 0; i < 5; ++i) b.next();
  b.reset();
  EXPECT_EQ(b.attempts(), 0);
  EXPECT_LT(b.next(), 100ms);
}

TEST(Backoff, JitterSpreadsClients) {
  Backoff a(1s, 10s, 1), c(1s, 10s, 2);
  EXPECT_NE(a.next(), c.next());
}

}  // namespace
}  // namespace gpupool::kube
