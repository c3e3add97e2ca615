#include "gpupool/runtime/workqueue.h"

#include <gtest/gtest.h>

#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace gpupool::runtime {
namespace {

using namespace std::chrono_literals;
using Duration = RateLimiter::Duration;

struct FakeClock {
  std::mutex mu;
  kube::TokenBucket::Clock::time_point t{};
  std::function<kube::TokenBucket::Clock::time_point()> fn() {
    return [this] {
      std::lock_guard lock(mu);
      return t;
    };
  }
  void advance(Duration d) {
    std::lock_guard lock(mu);
    t += d;
  }
};

// Records calls, returns a fixed delay and a fixed requeue count.
class ScriptedLimiter final : public RateLimiter {
 public:
  ScriptedLimiter(Duration delay, int requeues, std::vector<std::string>* log, std::string name)
      : delay_(delay), requeues_(requeues), log_(log), name_(std::move(name)) {}
  Duration when(const std::string& item) override {
    log_->push_back(name_ + ".when(" + item + ")");
    return delay_;
  }
  void forget(const std::string& item) override { log_->push_back(name_ + ".forget(" + item + ")"); }
  int num_requeues(const std::string&) const override { return requeues_; }

 private:
  Duration delay_;
  int requeues_;
  std::vector<std::string>* log_;
  std::string name_;
};

TEST(ItemExponentialFailureRateLimiter, DoublesFromBaseUpToMax) {
  ItemExponentialFailureRateLimiter limiter(5ms, 1s);
  std::vector<Duration> expected = {5ms, 10ms, 20ms, 40ms, 80ms, 160ms, 320ms, 640ms, 1s, 1s};
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(limiter.when("ns/a"), expected[i]) << "failure " << i;
    EXPECT_EQ(limiter.num_requeues("ns/a"), static_cast<int>(i) + 1);
  }
}

TEST(ItemExponentialFailureRateLimiter, SaturatesAtMaxWithoutOverflow) {
  ItemExponentialFailureRateLimiter limiter(5ms, 1000s);
  Duration last{};
  for (int i = 0; i < 2000; ++i) last = limiter.when("ns/a");
  EXPECT_EQ(last, 1000s);
  EXPECT_EQ(limiter.num_requeues("ns/a"), 2000);
}

TEST(ItemExponentialFailureRateLimiter, ForgetResetsOnlyThatItem) {
  ItemExponentialFailureRateLimiter limiter(5ms, 1s);
  limiter.when("ns/a");
  limiter.when("ns/a");
  limiter.when("ns/b");
  limiter.forget("ns/a");
  EXPECT_EQ(limiter.num_requeues("ns/a"), 0);
  EXPECT_EQ(limiter.when("ns/a"), 5ms);
  EXPECT_EQ(limiter.num_requeues("ns/b"), 1);
  EXPECT_EQ(limiter.when("ns/b"), 10ms);
}

TEST(ItemExponentialFailureRateLimiter, ItemsBackOffIndependently) {
  ItemExponentialFailureRateLimiter limiter(1ms, 1s);
  EXPECT_EQ(limiter.when("a"), 1ms);
  EXPECT_EQ(limiter.when("a"), 2ms);
  EXPECT_EQ(limiter.when("b"), 1ms);
  EXPECT_EQ(limiter.num_requeues("c"), 0);
}

TEST(BucketRateLimiter, AllowsBurstThenSpacesAtQps) {
  FakeClock clock;
  BucketRateLimiter limiter(10, 3, clock.fn());
  for (int i = 0; i < 3; ++i) EXPECT_EQ(limiter.when("item"), Duration::zero()) << "burst " << i;
  // Each further reservation queues 1/qps behind the previous one, whatever the item.
  EXPECT_EQ(std::chrono::round<std::chrono::milliseconds>(limiter.when("a")), 100ms);
  EXPECT_EQ(std::chrono::round<std::chrono::milliseconds>(limiter.when("b")), 200ms);
  EXPECT_EQ(std::chrono::round<std::chrono::milliseconds>(limiter.when("c")), 300ms);
}

TEST(BucketRateLimiter, RefillsOverTime) {
  FakeClock clock;
  BucketRateLimiter limiter(10, 2, clock.fn());
  limiter.when("a");
  limiter.when("a");
  EXPECT_GT(limiter.when("a"), Duration::zero());  // tokens now -1
  clock.advance(1s);                               // +10 tokens, capped at the burst
  EXPECT_EQ(limiter.when("a"), Duration::zero());
  EXPECT_EQ(limiter.when("a"), Duration::zero());
  EXPECT_GT(limiter.when("a"), Duration::zero());
}

TEST(BucketRateLimiter, DoesNotTrackItems) {
  FakeClock clock;
  BucketRateLimiter limiter(1, 1, clock.fn());
  limiter.when("a");
  Duration queued = limiter.when("a");
  EXPECT_GT(queued, Duration::zero());
  EXPECT_EQ(limiter.num_requeues("a"), 0);
  limiter.forget("a");  // does not give the token back
  EXPECT_GT(limiter.when("a"), queued);
}

TEST(MaxOfRateLimiter, ReturnsLongestDelayAndAsksEveryLimiter) {
  std::vector<std::string> log;
  std::vector<std::unique_ptr<RateLimiter>> limiters;
  limiters.push_back(std::make_unique<ScriptedLimiter>(5ms, 2, &log, "x"));
  limiters.push_back(std::make_unique<ScriptedLimiter>(30ms, 7, &log, "y"));
  limiters.push_back(std::make_unique<ScriptedLimiter>(10ms, 1, &log, "z"));
  MaxOfRateLimiter limiter(std::move(limiters));
  EXPECT_EQ(limiter.when("a"), 30ms);
  EXPECT_EQ(limiter.num_requeues("a"), 7);
  limiter.forget("a");
  EXPECT_EQ(log, (std::vector<std::string>{"x.when(a)", "y.when(a)", "z.when(a)", "x.forget(a)", "y.forget(a)",
                                           "z.forget(a)"}));
}

TEST(MaxOfRateLimiter, CombinesBackoffWithBucket) {
  FakeClock clock;
  std::vector<std::unique_ptr<RateLimiter>> limiters;
  limiters.push_back(std::make_unique<ItemExponentialFailureRateLimiter>(5ms, 1000s));
  limiters.push_back(std::make_unique<BucketRateLimiter>(1, 1, clock.fn()));
  MaxOfRateLimiter limiter(std::move(limiters));
  EXPECT_EQ(limiter.when("a"), 5ms);  // bucket has its burst token
  EXPECT_EQ(std::chrono::round<std::chrono::milliseconds>(limiter.when("b")), 1s);  // bucket empty
  EXPECT_EQ(limiter.num_requeues("a"), 1);
  limiter.forget("a");
  EXPECT_EQ(limiter.num_requeues("a"), 0);
}

TEST(MaxOfRateLimiter, EmptyMeansNoDelay) {
  MaxOfRateLimiter limiter({});
  EXPECT_EQ(limiter.when("a"), Duration::zero());
  EXPECT_EQ(limiter.num_requeues("a"), 0);
}

TEST(DefaultControllerRateLimiter, PerItemBackoffWithinTheBurst) {
  auto limiter = default_controller_rate_limiter();
  EXPECT_EQ(limiter->when("ns/a"), 5ms);
  EXPECT_EQ(limiter->when("ns/a"), 10ms);
  EXPECT_EQ(limiter->when("ns/a"), 20ms);
  EXPECT_EQ(limiter->num_requeues("ns/a"), 3);
  limiter->forget("ns/a");
  EXPECT_EQ(limiter->num_requeues("ns/a"), 0);
  EXPECT_EQ(limiter->when("ns/a"), 5ms);
}

TEST(DefaultControllerRateLimiter, OverallBucketOf100ThenTenPerSecond) {
  auto limiter = default_controller_rate_limiter();
  for (int i = 0; i < 100; ++i) {
    ASSERT_EQ(limiter->when("ns/item-" + std::to_string(i)), 5ms) << "item " << i;
  }
  // The burst is spent: a fresh item waits for the bucket (~100 ms, less
  // whatever real time the loop above took), not its own 5 ms backoff.
  Duration d = limiter->when("ns/fresh");
  EXPECT_GT(d, 50ms);
  EXPECT_LE(d, 100ms);
}

}  // namespace
}  // namespace gpupool::runtime
