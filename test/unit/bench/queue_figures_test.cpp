// The scale benchmark's reading of the controller's /metrics (tools/bench/scale/queue_figures.h):
// means per controller from the two workqueue histograms, what each queue holds now; anything else is skipped.
#include "scale/queue_figures.h"

#include <gtest/gtest.h>

namespace gpupool::bench {
namespace {

TEST(QueueFigures, MeansPerControllerFromBothHistograms) {
  const auto f = queue_figures(
      "# HELP workqueue_work_duration_seconds How long\n"
      "# TYPE workqueue_work_duration_seconds histogram\n"
      "workqueue_work_duration_seconds_bucket{name=\"gpupool\",le=\"0.1\"} 3\n"
      "workqueue_work_duration_seconds_sum{name=\"gpupool\"} 0.5\n"
      "workqueue_work_duration_seconds_count{name=\"gpupool\"} 10\n"
      "workqueue_queue_duration_seconds_sum{name=\"gpupool\"} 12\n"
      "workqueue_queue_duration_seconds_count{name=\"gpupool\"} 8\n"
      "workqueue_work_duration_seconds_sum{name=\"gpu-health\"} 1\n"
      "workqueue_work_duration_seconds_count{name=\"gpu-health\"} 4\n"
      "workqueue_depth{name=\"gpupool\"} 7\n");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_DOUBLE_EQ(f.at("gpupool").passes, 10);
  EXPECT_DOUBLE_EQ(f.at("gpupool").mean_pass_ms, 50);
  EXPECT_DOUBLE_EQ(f.at("gpupool").mean_wait_ms, 1500);
  EXPECT_DOUBLE_EQ(f.at("gpu-health").mean_pass_ms, 250);
  EXPECT_DOUBLE_EQ(f.at("gpu-health").mean_wait_ms, 0);  // no queue samples: none said
  EXPECT_DOUBLE_EQ(f.at("gpupool").depth, 7);
  EXPECT_FALSE(f.at("gpupool").idle());
  EXPECT_TRUE(f.at("gpu-health").idle());
}

TEST(QueueFigures, APassRunningIsNotIdle) {
  const auto f = queue_figures(
      "workqueue_work_duration_seconds_count{name=\"tenantquota-grants\"} 3\n"
      "workqueue_depth{name=\"tenantquota-grants\"} 0\n"
      "workqueue_unfinished_work_seconds{name=\"tenantquota-grants\"} 0.6\n");
  EXPECT_DOUBLE_EQ(f.at("tenantquota-grants").unfinished_s, 0.6);
  EXPECT_FALSE(f.at("tenantquota-grants").idle());
}

TEST(QueueFigures, AnythingElseParsesToNothing) {
  EXPECT_TRUE(queue_figures("").empty());
  EXPECT_TRUE(queue_figures("garbage\n{}\nworkqueue_work_duration_seconds_sum{name=\"x\"\n").empty());
  EXPECT_TRUE(queue_figures("workqueue_work_duration_seconds_sum{} 3\n").empty());  // no name
  const auto f = queue_figures("workqueue_work_duration_seconds_count{name=\"a\"} notanumber\n");
  EXPECT_TRUE(f.empty());
}

}  // namespace
}  // namespace gpupool::bench
