#include "gpupool/runtime/workqueue.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <functional>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gpupool::runtime {
namespace {

using namespace std::chrono_literals;
using Clock = WorkQueue::Clock;

// A clock tests move by hand; the queue reads it from its own thread too.
class FakeClock {
 public:
  std::function<Clock::time_point()> fn() {
    return [this] {
      std::lock_guard lock(mu_);
      return t_;
    };
  }
  void advance(Clock::duration d) {
    std::lock_guard lock(mu_);
    t_ += d;
  }

 private:
  std::mutex mu_;
  Clock::time_point t_{};
};

// Polls pred until it holds or the deadline passes.
bool eventually(const std::function<bool()>& pred, Clock::duration timeout = 5s) {
  auto deadline = Clock::now() + timeout;
  while (!pred()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

// get() on another thread, bounded: a hang fails the test instead of blocking it.
std::optional<std::string> get_within(WorkQueue& q, Clock::duration timeout = 5s) {
  auto result = std::async(std::launch::async, [&q] { return q.get(); });
  if (result.wait_for(timeout) != std::future_status::ready) {
    ADD_FAILURE() << "get() did not return in time";
    q.shut_down();
  }
  return result.get();
}

std::future<void> start_drain(WorkQueue& q) {
  return std::async(std::launch::async, [&q] { q.shut_down_with_drain(); });
}

// Waits for a background shut_down_with_drain() to return; a hang fails the
// test and is ended by shut_down().
void expect_drain_returns(std::future<void>& drain, WorkQueue& q, Clock::duration timeout = 5s) {
  if (drain.wait_for(timeout) != std::future_status::ready) {
    ADD_FAILURE() << "shut_down_with_drain() did not return in time";
    q.shut_down();
  }
  drain.get();
}

WorkQueueOptions fake_clock_options(FakeClock& clock, std::unique_ptr<RateLimiter> limiter = nullptr) {
  WorkQueueOptions options;
  options.now = clock.fn();
  options.rate_limiter = std::move(limiter);
  return options;
}

TEST(WorkQueue, HandsOutItemsInOrder) {
  WorkQueue q;
  q.add("ns/a");
  q.add("ns/b");
  q.add("ns/c");
  EXPECT_EQ(q.len(), 3u);
  EXPECT_EQ(q.get(), "ns/a");
  EXPECT_EQ(q.get(), "ns/b");
  EXPECT_EQ(q.get(), "ns/c");
  EXPECT_EQ(q.len(), 0u);
}

TEST(WorkQueue, AddingAWaitingItemIsANoOp) {
  WorkQueue q;
  q.add("ns/a");
  q.add("ns/b");
  q.add("ns/a");
  q.add("ns/a");
  EXPECT_EQ(q.len(), 2u);
  EXPECT_EQ(q.get(), "ns/a");
  EXPECT_EQ(q.get(), "ns/b");
  EXPECT_EQ(q.len(), 0u);
}

TEST(WorkQueue, ItemAddedWhileProcessingIsRequeuedOnDone) {
  WorkQueue q;
  q.add("ns/a");
  ASSERT_EQ(q.get(), "ns/a");
  q.add("ns/a");
  q.add("ns/a");
  EXPECT_EQ(q.len(), 0u) << "must not be handed out while being processed";
  q.done("ns/a");
  EXPECT_EQ(q.len(), 1u);
  EXPECT_EQ(q.get(), "ns/a");
  q.done("ns/a");
  EXPECT_EQ(q.len(), 0u);
}

TEST(WorkQueue, DoneWithoutReAddDoesNotRequeue) {
  WorkQueue q;
  q.add("ns/a");
  ASSERT_EQ(q.get(), "ns/a");
  q.done("ns/a");
  EXPECT_EQ(q.len(), 0u);
  q.add("ns/a");  // and it can be added again afterwards
  EXPECT_EQ(q.len(), 1u);
}

TEST(WorkQueue, DoneOfAnItemNotBeingProcessedIsIgnored) {
  WorkQueue q;
  q.add("ns/a");
  q.done("ns/a");
  q.done("ns/zzz");
  EXPECT_EQ(q.len(), 1u);
  EXPECT_EQ(q.get(), "ns/a");
  EXPECT_EQ(q.len(), 0u);
}

TEST(WorkQueue, GetBlocksUntilAnItemIsAdded) {
  WorkQueue q;
  auto got = std::async(std::launch::async, [&q] { return q.get(); });
  EXPECT_EQ(got.wait_for(20ms), std::future_status::timeout);
  q.add("ns/a");
  ASSERT_EQ(got.wait_for(5s), std::future_status::ready);
  EXPECT_EQ(got.get(), "ns/a");
}

// Many workers and adders on few keys: no key is ever processed by two
// workers at once, and the last change of each key is always processed.
TEST(WorkQueue, NeverProcessesOneKeyConcurrentlyAndLosesNoUpdate) {
  constexpr int kKeys = 3, kWorkers = 8, kAdders = 4, kAddsPerAdder = 2000;
  WorkQueue q;
  std::array<std::atomic<int>, kKeys> in_flight{};
  std::array<std::atomic<int>, kKeys> written{};  // version last written by adders
  std::array<std::atomic<int>, kKeys> seen{};     // version seen by the last processing
  std::atomic<int> max_in_flight{0};
  std::atomic<int> processed{0};

  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&] {
      while (auto item = q.get()) {
        int k = std::stoi(*item);
        int now_in_flight = ++in_flight[k];
        int prev = max_in_flight.load();
        while (now_in_flight > prev && !max_in_flight.compare_exchange_weak(prev, now_in_flight)) {
        }
        seen[k] = written[k].load();
        std::this_thread::yield();
        --in_flight[k];
        processed++;
        q.done(*item);
      }
    });
  }
  std::vector<std::thread> adders;
  for (int a = 0; a < kAdders; ++a) {
    adders.emplace_back([&, a] {
      for (int i = 0; i < kAddsPerAdder; ++i) {
        int k = (i + a) % kKeys;
        ++written[k];
        q.add(std::to_string(k));
      }
    });
  }
  for (auto& t : adders) t.join();
  auto drain = start_drain(q);
  expect_drain_returns(drain, q, 30s);
  for (auto& t : workers) t.join();

  EXPECT_EQ(max_in_flight.load(), 1);
  EXPECT_GE(processed.load(), kKeys);
  EXPECT_LT(processed.load(), kAdders * kAddsPerAdder) << "adds of waiting keys should have been deduplicated";
  for (int k = 0; k < kKeys; ++k) EXPECT_EQ(seen[k].load(), written[k].load()) << "key " << k;
}

TEST(WorkQueueDelay, DelayedItemsArriveInDeadlineOrder) {
  FakeClock clock;
  WorkQueue q(fake_clock_options(clock));
  q.add_after("ns/late", 20ms);
  q.add_after("ns/early", 10ms);
  q.check_delayed();
  EXPECT_EQ(q.len(), 0u);
  clock.advance(9ms);
  q.check_delayed();
  EXPECT_EQ(q.len(), 0u);
  clock.advance(1ms);
  q.check_delayed();
  ASSERT_EQ(q.len(), 1u);
  EXPECT_EQ(q.get(), "ns/early");
  clock.advance(10ms);
  q.check_delayed();
  ASSERT_EQ(q.len(), 1u);
  EXPECT_EQ(q.get(), "ns/late");
}

TEST(WorkQueueDelay, EarlierDeadlineWinsWhenAddedLater) {
  FakeClock clock;
  WorkQueue q(fake_clock_options(clock));
  q.add_after("ns/a", 50ms);
  q.add_after("ns/a", 10ms);
  clock.advance(10ms);
  q.check_delayed();
  ASSERT_EQ(q.get(), "ns/a");
  q.done("ns/a");
  clock.advance(100ms);
  q.check_delayed();
  EXPECT_EQ(q.len(), 0u) << "the later deadline was replaced, not kept";
}

TEST(WorkQueueDelay, EarlierDeadlineWinsWhenAddedFirst) {
  FakeClock clock;
  WorkQueue q(fake_clock_options(clock));
  q.add_after("ns/a", 10ms);
  q.add_after("ns/a", 50ms);
  clock.advance(10ms);
  q.check_delayed();
  ASSERT_EQ(q.get(), "ns/a");
  q.done("ns/a");
  clock.advance(100ms);
  q.check_delayed();
  EXPECT_EQ(q.len(), 0u);
}

TEST(WorkQueueDelay, DueDelayedItemIsDeduplicatedWithWaitingOne) {
  FakeClock clock;
  WorkQueue q(fake_clock_options(clock));
  q.add_after("ns/a", 10ms);
  q.add("ns/a");
  clock.advance(10ms);
  q.check_delayed();
  EXPECT_EQ(q.len(), 1u);
}

TEST(WorkQueueDelay, NonPositiveDelayAddsAtOnce) {
  FakeClock clock;
  WorkQueue q(fake_clock_options(clock));
  q.add_after("ns/a", 0ms);
  q.add_after("ns/b", -5ms);
  EXPECT_EQ(q.len(), 2u);
}

TEST(WorkQueueDelay, HugeDelayDoesNotOverflow) {
  FakeClock clock;
  WorkQueue q(fake_clock_options(clock));
  q.add_after("ns/a", Clock::duration::max());
  clock.advance(24h * 365 * 100);
  q.check_delayed();
  EXPECT_EQ(q.len(), 0u);
}

TEST(WorkQueueDelay, RealClockThreadAddsWhenDue) {
  WorkQueue q;
  auto start = Clock::now();
  q.add_after("ns/a", 30ms);
  EXPECT_EQ(q.len(), 0u);
  EXPECT_EQ(get_within(q), "ns/a");
  EXPECT_GE(Clock::now() - start, 30ms);
}

TEST(WorkQueueDelay, RealClockThreadReplansForAnEarlierDeadline) {
  WorkQueue q;
  q.add_after("ns/late", 1h);
  q.add_after("ns/early", 10ms);
  EXPECT_EQ(get_within(q, 5s), "ns/early");
  EXPECT_EQ(q.len(), 0u);
}

TEST(WorkQueueDelay, DestructorDoesNotWaitForPendingDelays) {
  auto start = Clock::now();
  {
    WorkQueue q;
    q.add_after("ns/a", 1h);
  }
  EXPECT_LT(Clock::now() - start, 5s);
}

TEST(WorkQueueRateLimited, BacksOffPerItemAndForgetResets) {
  FakeClock clock;
  WorkQueue q(fake_clock_options(clock, std::make_unique<ItemExponentialFailureRateLimiter>(10ms, 1s)));
  q.add_rate_limited("ns/a");
  EXPECT_EQ(q.num_requeues("ns/a"), 1);
  EXPECT_EQ(q.len(), 0u);
  clock.advance(10ms);
  q.check_delayed();
  ASSERT_EQ(q.get(), "ns/a");
  q.done("ns/a");

  q.add_rate_limited("ns/a");  // second failure: 20 ms
  EXPECT_EQ(q.num_requeues("ns/a"), 2);
  clock.advance(10ms);
  q.check_delayed();
  EXPECT_EQ(q.len(), 0u);
  clock.advance(10ms);
  q.check_delayed();
  ASSERT_EQ(q.get(), "ns/a");
  q.done("ns/a");

  q.forget("ns/a");
  EXPECT_EQ(q.num_requeues("ns/a"), 0);
  q.add_rate_limited("ns/a");  // back to 10 ms
  clock.advance(10ms);
  q.check_delayed();
  EXPECT_EQ(q.len(), 1u);
}

TEST(WorkQueueShutdown, WakesBlockedGetters) {
  WorkQueue q;
  std::vector<std::future<std::optional<std::string>>> getters;
  for (int i = 0; i < 3; ++i) getters.push_back(std::async(std::launch::async, [&q] { return q.get(); }));
  q.shut_down();
  for (auto& g : getters) {
    ASSERT_EQ(g.wait_for(5s), std::future_status::ready);
    EXPECT_EQ(g.get(), std::nullopt);
  }
  EXPECT_TRUE(q.shutting_down());
}

TEST(WorkQueueShutdown, IgnoresAddsAndStopsHandingOut) {
  FakeClock clock;
  WorkQueue q(fake_clock_options(clock));
  q.add("ns/waiting");
  EXPECT_FALSE(q.shutting_down());
  q.shut_down();
  q.add("ns/a");
  q.add_after("ns/b", 0ms);
  q.add_rate_limited("ns/c");
  EXPECT_EQ(q.num_requeues("ns/c"), 0);
  EXPECT_EQ(get_within(q), std::nullopt);
  EXPECT_EQ(q.len(), 1u) << "only the item waiting before shutdown";
}

TEST(WorkQueueShutdown, DrainWaitsForInFlightWork) {
  WorkQueue q;
  q.add("ns/a");
  ASSERT_EQ(q.get(), "ns/a");
  auto drain = start_drain(q);
  ASSERT_TRUE(eventually([&] { return q.shutting_down(); }));
  EXPECT_EQ(drain.wait_for(50ms), std::future_status::timeout) << "returned while ns/a was in flight";
  q.add("ns/b");  // ignored while draining
  EXPECT_EQ(q.len(), 0u);
  q.done("ns/a");
  expect_drain_returns(drain, q);
  EXPECT_EQ(get_within(q), std::nullopt);
}

TEST(WorkQueueShutdown, DrainStillHandsOutWaitingItems) {
  WorkQueue q;
  q.add("ns/a");
  q.add("ns/b");
  ASSERT_EQ(q.get(), "ns/a");
  auto drain = start_drain(q);
  ASSERT_TRUE(eventually([&] { return q.shutting_down(); }));
  EXPECT_EQ(get_within(q), "ns/b");
  q.done("ns/b");
  EXPECT_EQ(drain.wait_for(20ms), std::future_status::timeout) << "ns/a is still in flight";
  q.done("ns/a");
  expect_drain_returns(drain, q);
  EXPECT_EQ(get_within(q), std::nullopt);
}

TEST(WorkQueueShutdown, DrainRequeuesItemsAddedBeforeShutdownWhileProcessing) {
  WorkQueue q;
  q.add("ns/a");
  ASSERT_EQ(q.get(), "ns/a");
  q.add("ns/a");  // dirty
  auto drain = start_drain(q);
  ASSERT_TRUE(eventually([&] { return q.shutting_down(); }));
  q.done("ns/a");
  EXPECT_EQ(get_within(q), "ns/a") << "the change made before shutdown is still processed";
  EXPECT_EQ(drain.wait_for(20ms), std::future_status::timeout);
  q.done("ns/a");
  expect_drain_returns(drain, q);
}

TEST(WorkQueueShutdown, ShutDownEndsADrainWait) {
  WorkQueue q;
  q.add("ns/a");
  ASSERT_EQ(q.get(), "ns/a");
  auto drain = start_drain(q);
  ASSERT_TRUE(eventually([&] { return q.shutting_down(); }));
  q.shut_down();
  expect_drain_returns(drain, q);
}

TEST(WorkQueueShutdown, DrainOfAnIdleQueueReturnsAtOnce) {
  WorkQueue q;
  auto drain = start_drain(q);
  expect_drain_returns(drain, q);
  EXPECT_TRUE(q.shutting_down());
}

// Records every metrics call; thread-safe, as the queue's thread reports too.
class RecordingMetrics final : public WorkQueueMetrics {
 public:
  struct State {
    std::mutex mu;
    std::vector<long> depths;
    int adds = 0;
    std::vector<double> queue_seconds;
    std::vector<double> work_seconds;
    std::vector<double> unfinished;
    std::vector<double> longest;
    int retries = 0;
  };
  explicit RecordingMetrics(State* s) : s_(s) {}
  void set_depth(long depth) override { with([&] { s_->depths.push_back(depth); }); }
  void add() override { with([&] { s_->adds++; }); }
  void observe_queue_seconds(double v) override { with([&] { s_->queue_seconds.push_back(v); }); }
  void observe_work_seconds(double v) override { with([&] { s_->work_seconds.push_back(v); }); }
  void set_unfinished_work_seconds(double v) override { with([&] { s_->unfinished.push_back(v); }); }
  void set_longest_running_processor_seconds(double v) override { with([&] { s_->longest.push_back(v); }); }
  void retry() override { with([&] { s_->retries++; }); }

 private:
  template <typename F>
  void with(F f) {
    std::lock_guard lock(s_->mu);
    f();
  }
  State* s_;
};

class RecordingProvider final : public WorkQueueMetricsProvider {
 public:
  std::unique_ptr<WorkQueueMetrics> for_queue(const std::string& name) override {
    names.push_back(name);
    return std::make_unique<RecordingMetrics>(&state);
  }
  std::vector<std::string> names;
  RecordingMetrics::State state;
};

TEST(WorkQueueMetricsReporting, CountsAddsDepthAndLatencies) {
  FakeClock clock;
  RecordingProvider provider;
  WorkQueueOptions options = fake_clock_options(clock);
  options.name = "gpupools";
  options.metrics = &provider;
  WorkQueue q(std::move(options));
  EXPECT_EQ(provider.names, std::vector<std::string>{"gpupools"});

  q.add("ns/a");
  q.add("ns/a");  // dedup'd: not counted
  q.add("ns/b");
  clock.advance(3s);
  ASSERT_EQ(q.get(), "ns/a");
  clock.advance(2s);
  q.add("ns/a");  // dirty while processing: counted, part of the depth
  q.done("ns/a");

  std::lock_guard lock(provider.state.mu);
  EXPECT_EQ(provider.state.adds, 3);
  EXPECT_EQ(provider.state.depths, (std::vector<long>{1, 2, 1, 2}));
  EXPECT_EQ(provider.state.queue_seconds, std::vector<double>{3.0});
  EXPECT_EQ(provider.state.work_seconds, std::vector<double>{2.0});
}

TEST(WorkQueueMetricsReporting, QueueLatencyRunsFromTheFirstAdd) {
  FakeClock clock;
  RecordingProvider provider;
  WorkQueueOptions options = fake_clock_options(clock);
  options.metrics = &provider;
  WorkQueue q(std::move(options));
  q.add("ns/a");
  clock.advance(1s);
  q.add("ns/a");
  clock.advance(1s);
  ASSERT_EQ(q.get(), "ns/a");
  std::lock_guard lock(provider.state.mu);
  EXPECT_EQ(provider.state.queue_seconds, std::vector<double>{2.0});
  EXPECT_EQ(provider.state.depths, (std::vector<long>{1, 0}));
}

TEST(WorkQueueMetricsReporting, CountsRetriesOnRateLimitedAdds) {
  FakeClock clock;
  RecordingProvider provider;
  WorkQueueOptions options = fake_clock_options(clock, std::make_unique<ItemExponentialFailureRateLimiter>(1ms, 1s));
  options.metrics = &provider;
  WorkQueue q(std::move(options));
  q.add_rate_limited("ns/a");
  q.add_rate_limited("ns/a");
  q.add_after("ns/b", 1ms);  // a plain delayed add is not a retry
  {
    std::lock_guard lock(provider.state.mu);
    EXPECT_EQ(provider.state.retries, 2);
    EXPECT_EQ(provider.state.adds, 0) << "nothing is added before its delay";
  }
  clock.advance(1ms);
  q.check_delayed();
  std::lock_guard lock(provider.state.mu);
  EXPECT_EQ(provider.state.adds, 2);  // ns/a (earliest deadline 1 ms) and ns/b
}

TEST(WorkQueueMetricsReporting, ReportsUnfinishedWorkPeriodically) {
  FakeClock clock;
  RecordingProvider provider;
  WorkQueueOptions options = fake_clock_options(clock);
  options.metrics = &provider;
  options.unfinished_work_update_period = 1ms;
  WorkQueue q(std::move(options));
  q.add("ns/a");
  q.add("ns/b");
  ASSERT_EQ(q.get(), "ns/a");
  clock.advance(4s);
  ASSERT_EQ(q.get(), "ns/b");
  clock.advance(1s);  // ns/a has run 5 s, ns/b 1 s
  auto reported = [&] {
    std::lock_guard lock(provider.state.mu);
    return !provider.state.unfinished.empty() && provider.state.unfinished.back() == 6.0 &&
           !provider.state.longest.empty() && provider.state.longest.back() == 5.0;
  };
  EXPECT_TRUE(eventually(reported));
  q.done("ns/a");
  q.done("ns/b");
  auto idle = [&] {
    std::lock_guard lock(provider.state.mu);
    return provider.state.unfinished.back() == 0.0 && provider.state.longest.back() == 0.0;
  };
  EXPECT_TRUE(eventually(idle));
}

TEST(WorkQueueMetricsReporting, NoWorkQueueMetricsIsUsable) {
  NoWorkQueueMetrics none;
  auto metrics = none.for_queue("q");
  ASSERT_NE(metrics, nullptr);
  metrics->add();
  metrics->set_depth(3);
  WorkQueueOptions options;
  options.metrics = &none;
  WorkQueue q(std::move(options));
  q.add("ns/a");
  EXPECT_EQ(q.get(), "ns/a");
}

}  // namespace
}  // namespace gpupool::runtime
