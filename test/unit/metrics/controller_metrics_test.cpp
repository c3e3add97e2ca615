#include "gpupool/metrics/controller_metrics.h"

#include <gtest/gtest.h>

#include "gpupool/metrics/exposition.h"

namespace gpupool::metrics {
namespace {

using Labels = std::vector<std::string>;

TEST(MetricControllerFamilies, NamesKindsAndLabelsMatchControllerRuntime) {
  Registry registry;
  ControllerMetrics metrics(registry);
  EXPECT_EQ(metrics.reconcile_total.name(), "controller_runtime_reconcile_total");
  EXPECT_EQ(metrics.reconcile_total.kind(), MetricKind::Counter);
  EXPECT_EQ(metrics.reconcile_total.label_names(), (Labels{"controller", "result"}));
  EXPECT_EQ(metrics.reconcile_errors_total.name(), "controller_runtime_reconcile_errors_total");
  EXPECT_EQ(metrics.reconcile_errors_total.label_names(), Labels{"controller"});
  EXPECT_EQ(metrics.reconcile_time_seconds.name(), "controller_runtime_reconcile_time_seconds");
  EXPECT_EQ(metrics.reconcile_time_seconds.kind(), MetricKind::Histogram);
  EXPECT_EQ(metrics.reconcile_time_seconds.label_names(), Labels{"controller"});
  EXPECT_EQ(metrics.reconcile_time_seconds.bucket_bounds().size(), 40u);
  EXPECT_EQ(metrics.reconcile_time_seconds.bucket_bounds().front(), 0.005);
  EXPECT_EQ(metrics.reconcile_time_seconds.bucket_bounds().back(), 60);
  EXPECT_EQ(metrics.active_workers.name(), "controller_runtime_active_workers");
  EXPECT_EQ(metrics.active_workers.kind(), MetricKind::Gauge);
  EXPECT_EQ(metrics.max_concurrent_reconciles.name(), "controller_runtime_max_concurrent_reconciles");
  EXPECT_EQ(metrics.max_concurrent_reconciles.label_names(), Labels{"controller"});
  EXPECT_EQ(metrics.leader_election_master_status.name(), "leader_election_master_status");
  EXPECT_EQ(metrics.leader_election_master_status.label_names(), Labels{"name"});
  EXPECT_EQ(metrics.rest_client_requests_total.name(), "rest_client_requests_total");
  EXPECT_EQ(metrics.rest_client_requests_total.label_names(), (Labels{"code", "method", "host"}));
}

TEST(MetricControllerFamilies, ConstructingTwiceSharesTheFamilies) {
  Registry registry;
  ControllerMetrics a(registry);
  ControllerMetrics b(registry);
  EXPECT_EQ(&a.reconcile_total, &b.reconcile_total);
  EXPECT_EQ(&controller_metrics(), &controller_metrics());
  EXPECT_EQ(&controller_metrics().reconcile_total, &ControllerMetrics(default_registry()).reconcile_total);
}

TEST(MetricControllerFamilies, ForControllerCreatesEverySeries) {
  Registry registry;
  ControllerMetrics metrics(registry);
  auto pools = metrics.for_controller("gpupool");
  pools.reconcile_success.inc();
  pools.reconcile_time_seconds.observe(0.02);
  pools.max_concurrent_reconciles.set(4);
  const std::string text = render_text(registry);
  for (const char* line : {
           "controller_runtime_reconcile_total{controller=\"gpupool\",result=\"success\"} 1\n",
           "controller_runtime_reconcile_total{controller=\"gpupool\",result=\"error\"} 0\n",
           "controller_runtime_reconcile_total{controller=\"gpupool\",result=\"requeue\"} 0\n",
           "controller_runtime_reconcile_total{controller=\"gpupool\",result=\"requeue_after\"} 0\n",
           "controller_runtime_reconcile_errors_total{controller=\"gpupool\"} 0\n",
           "controller_runtime_reconcile_time_seconds_bucket{controller=\"gpupool\",le=\"0.025\"} 1\n",
           "controller_runtime_reconcile_time_seconds_count{controller=\"gpupool\"} 1\n",
           "controller_runtime_active_workers{controller=\"gpupool\"} 0\n",
           "controller_runtime_max_concurrent_reconciles{controller=\"gpupool\"} 4\n",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin:\n" << text;
  }
  EXPECT_EQ(&pools.reconcile_error, &metrics.reconcile_total.with({"gpupool", std::string(reconcile_result::kError)}));
}

}  // namespace
}  // namespace gpupool::metrics
