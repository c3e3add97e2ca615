#include "gpupool/runtime/prometheus_workqueue_metrics.h"

#include <gtest/gtest.h>

#include <map>

#include "gpupool/metrics/exposition.h"

namespace gpupool::runtime {
namespace {

const metrics::FamilySnapshot& find(const std::vector<metrics::FamilySnapshot>& families, const std::string& name) {
  for (const auto& family : families) {
    if (family.name == name) return family;
  }
  throw std::runtime_error("no family " + name);
}

TEST(MetricWorkQueue, RegistersClientGoFamilies) {
  metrics::Registry registry;
  PrometheusWorkQueueMetrics provider(registry);
  auto queue = provider.for_queue("gpupools");
  const auto families = registry.collect();
  const std::map<std::string, metrics::MetricKind> expected = {
      {"workqueue_adds_total", metrics::MetricKind::Counter},
      {"workqueue_depth", metrics::MetricKind::Gauge},
      {"workqueue_longest_running_processor_seconds", metrics::MetricKind::Gauge},
      {"workqueue_queue_duration_seconds", metrics::MetricKind::Histogram},
      {"workqueue_retries_total", metrics::MetricKind::Counter},
      {"workqueue_unfinished_work_seconds", metrics::MetricKind::Gauge},
      {"workqueue_work_duration_seconds", metrics::MetricKind::Histogram},
  };
  ASSERT_EQ(families.size(), expected.size());
  for (const auto& family : families) {
    ASSERT_TRUE(expected.contains(family.name)) << family.name;
    EXPECT_EQ(family.kind, expected.at(family.name)) << family.name;
    EXPECT_EQ(family.label_names, std::vector<std::string>{"name"}) << family.name;
    EXPECT_FALSE(family.help.empty()) << family.name;
    // The queue's series exist at zero before it does anything.
    ASSERT_EQ(family.children.size(), 1u) << family.name;
    EXPECT_EQ(family.children[0].label_values, std::vector<std::string>{"gpupools"});
  }
  EXPECT_EQ(find(families, "workqueue_queue_duration_seconds").bucket_bounds, workqueue_buckets());
  EXPECT_EQ(find(families, "workqueue_work_duration_seconds").bucket_bounds, workqueue_buckets());
}

TEST(MetricWorkQueue, BucketsAreClientGoExponentialByTen) {
  const auto buckets = workqueue_buckets();
  ASSERT_EQ(buckets.size(), 10u);
  EXPECT_DOUBLE_EQ(buckets.front(), 1e-8);
  EXPECT_DOUBLE_EQ(buckets.back(), 10);
  for (std::size_t i = 1; i < buckets.size(); ++i) EXPECT_DOUBLE_EQ(buckets[i] / buckets[i - 1], 10);
}

TEST(MetricWorkQueue, QueueCallsReachTheirSeries) {
  metrics::Registry registry;
  PrometheusWorkQueueMetrics provider(registry);
  auto a = provider.for_queue("a");
  auto b = provider.for_queue("b");
  a->add();
  a->add();
  a->set_depth(2);
  a->observe_queue_seconds(0.002);
  a->observe_work_seconds(0.5);
  a->observe_work_seconds(20);
  a->set_unfinished_work_seconds(1.5);
  a->set_longest_running_processor_seconds(0.75);
  a->retry();
  b->add();

  const auto families = registry.collect();
  auto value = [&](const std::string& name, std::size_t child) {
    return find(families, name).children.at(child).value;
  };
  EXPECT_EQ(value("workqueue_adds_total", 0), 2);  // children sorted: "a" then "b"
  EXPECT_EQ(value("workqueue_adds_total", 1), 1);
  EXPECT_EQ(value("workqueue_depth", 0), 2);
  EXPECT_EQ(value("workqueue_unfinished_work_seconds", 0), 1.5);
  EXPECT_EQ(value("workqueue_longest_running_processor_seconds", 0), 0.75);
  EXPECT_EQ(value("workqueue_retries_total", 0), 1);
  EXPECT_EQ(value("workqueue_retries_total", 1), 0);

  const auto& queued = find(families, "workqueue_queue_duration_seconds").children.at(0);
  EXPECT_EQ(queued.count, 1u);
  EXPECT_EQ(queued.cumulative_counts.at(5), 0u);  // le=0.001
  EXPECT_EQ(queued.cumulative_counts.at(6), 1u);  // le=0.01
  const auto& work = find(families, "workqueue_work_duration_seconds").children.at(0);
  EXPECT_EQ(work.count, 2u);
  EXPECT_EQ(work.cumulative_counts.back(), 1u);  // 20 s is past the last bound (10)
  EXPECT_EQ(work.sum, 20.5);

  // Another queue of the same name shares the series.
  provider.for_queue("a")->add();
  EXPECT_EQ(find(registry.collect(), "workqueue_adds_total").children.at(0).value, 3);
}

TEST(MetricWorkQueue, TwoProvidersOnOneRegistryShareFamilies) {
  metrics::Registry registry;
  PrometheusWorkQueueMetrics first(registry);
  PrometheusWorkQueueMetrics second(registry);
  first.for_queue("q")->add();
  second.for_queue("q")->add();
  EXPECT_EQ(find(registry.collect(), "workqueue_adds_total").children.at(0).value, 2);
}

TEST(MetricWorkQueue, UsableThroughTheQueueInterface) {
  metrics::Registry registry;
  PrometheusWorkQueueMetrics provider(registry);
  WorkQueueMetricsProvider& as_provider = provider;
  std::unique_ptr<WorkQueueMetrics> queue = as_provider.for_queue("q");
  queue->set_depth(5);
  EXPECT_NE(metrics::render_text(registry).find("workqueue_depth{name=\"q\"} 5\n"), std::string::npos);
}

}  // namespace
}  // namespace gpupool::runtime
