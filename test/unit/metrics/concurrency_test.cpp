// Many threads updating the same children: totals must be exact.
#include <gtest/gtest.h>

#include <barrier>
#include <string>
#include <thread>
#include <vector>

#include "gpupool/metrics/exposition.h"
#include "gpupool/metrics/registry.h"

namespace gpupool::metrics {
namespace {

constexpr int kThreads = 8;
constexpr int kIterations = 20000;

void run_threads(const std::function<void(int)>& body) {
  std::barrier start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      body(t);
    });
  }
  for (auto& thread : threads) thread.join();
}

TEST(MetricConcurrency, CounterIncrementsAreExact) {
  Registry registry;
  auto& counter = registry.counter("c_total", "h").with({});
  run_threads([&](int) {
    for (int i = 0; i < kIterations; ++i) counter.inc();
  });
  EXPECT_EQ(counter.value(), double{kThreads} * kIterations);
}

TEST(MetricConcurrency, GaugeIncAndDecCancelOut) {
  Registry registry;
  auto& gauge = registry.gauge("g", "h").with({});
  run_threads([&](int t) {
    for (int i = 0; i < kIterations; ++i) (t % 2 == 0) ? gauge.inc(2) : gauge.dec(2);
  });
  EXPECT_EQ(gauge.value(), 0);
}

TEST(MetricConcurrency, HistogramCountsAndSumAreExact) {
  Registry registry;
  auto& histogram = registry.histogram("h_seconds", "h", {}, {0.5, 1.5}).with({});
  run_threads([&](int t) {
    for (int i = 0; i < kIterations; ++i) histogram.observe(t % 2 == 0 ? 1.0 : 0.25);
  });
  const auto child = registry.collect().at(0).children.at(0);
  constexpr std::uint64_t kHalf = std::uint64_t{kThreads} / 2 * kIterations;
  EXPECT_EQ(child.cumulative_counts, (std::vector<std::uint64_t>{kHalf, 2 * kHalf}));
  EXPECT_EQ(child.count, 2 * kHalf);
  EXPECT_EQ(child.sum, double(kHalf) * 1.25);  // every partial sum is a multiple of 0.25: exact
}

TEST(MetricConcurrency, ConcurrentLookupsShareOneChild) {
  Registry registry;
  auto& family = registry.counter("c_total", "h", {"worker", "result"});
  run_threads([&](int t) {
    for (int i = 0; i < kIterations / 10; ++i) {
      family.with({"shared", "ok"}).inc();
      family.with({"w" + std::to_string(t), "ok"}).inc();
    }
  });
  EXPECT_EQ(family.with({"shared", "ok"}).value(), double{kThreads} * (kIterations / 10));
  EXPECT_EQ(family.collect().children.size(), std::size_t{kThreads} + 1);
}

TEST(MetricConcurrency, ScrapingWhileUpdatingAndRegistering) {
  Registry registry;
  auto& family = registry.counter("c_total", "h", {"n"});
  run_threads([&](int t) {
    for (int i = 0; i < 200; ++i) {
      if (t == 0) {
        const std::string text = render_text(registry);
        EXPECT_EQ(text.find("# HELP c_total h\n"), text.empty() ? std::string::npos : 0u);
      } else {
        family.with({std::to_string(i % 7)}).inc();
        registry.gauge("g_" + std::to_string(t) + "_" + std::to_string(i % 5), "h").with({}).inc();
      }
    }
  });
  double total = 0;
  for (const auto& child : family.collect().children) total += child.value;
  EXPECT_EQ(total, double{kThreads - 1} * 200);
}

}  // namespace
}  // namespace gpupool::metrics
