#include "gpupool/kube/rate_limiter.h"

#include <gtest/gtest.h>

#include <thread>

namespace gpupool::kube {
namespace {

using namespace std::chrono_literals;

struct FakeClock {
  TokenBucket::Clock::time_point now{};
  std::function<TokenBucket::Clock::time_point()> fn() {
    return [this] { return now; };
  }
};

TEST(TokenBucket, StartsFullAndAllowsBurst) {
  FakeClock clock;
  TokenBucket bucket(10, 5, clock.fn());
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(bucket.try_acquire()) << "token " << i;
  EXPECT_FALSE(bucket.try_acquire());
}

TEST(TokenBucket, RefillsAtQps) {
  FakeClock clock;
  TokenBucket bucket(10, 2, clock.fn());
  ASSERT_TRUE(bucket.try_acquire());
  ASSERT_TRUE(bucket.try_acquire());
  ASSERT_FALSE(bucket.try_acquire());
  clock.now += 50ms;  // half a token
  EXPECT_FALSE(bucket.try_acquire());
  clock.now += 50ms;  // one token
  EXPECT_TRUE(bucket.try_acquire());
  EXPECT_FALSE(bucket.try_acquire());
}

TEST(TokenBucket, NeverExceedsBurstAfterLongIdle) {
  FakeClock clock;
  TokenBucket bucket(100, 3, clock.fn());
  clock.now += 1h;
  int taken = 0;
  while (bucket.try_acquire()) ++taken;
  EXPECT_EQ(taken, 3);
}

TEST(TokenBucket, ReserveQueuesCallersBehindEachOther) {
  FakeClock clock;
  TokenBucket bucket(10, 1, clock.fn());
  EXPECT_EQ(bucket.reserve(), TokenBucket::Clock::duration::zero());
  auto first = bucket.reserve();
  auto second = bucket.reserve();
  EXPECT_NEAR(std::chrono::duration<double>(first).count(), 0.1, 1e-6);
  EXPECT_NEAR(std::chrono::duration<double>(second).count(), 0.2, 1e-6);
}

TEST(TokenBucket, ZeroQpsDisablesLimiting) {
  FakeClock clock;
  TokenBucket bucket(0, 1, clock.fn());
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(bucket.try_acquire());
  EXPECT_EQ(bucket.reserve(), TokenBucket::Clock::duration::zero());
}

TEST(TokenBucket, ConcurrentCallersGetExactlyBurstTokens) {
  FakeClock clock;
  TokenBucket bucket(1, 50, clock.fn());
  std::atomic<int> granted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 100; ++i) {
        if (bucket.try_acquire()) granted++;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(granted.load(), 50);
}

}  // namespace
}  // namespace gpupool::kube
