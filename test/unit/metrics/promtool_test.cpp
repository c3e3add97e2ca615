// `promtool check metrics` (Prometheus' own parser and linter) on the
// exposition of every family the operator exports, with sample values.
// Skips only when promtool is not installed (Debian package prometheus;
// tools/dev/setup.sh installs it).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gpupool/metrics/controller_metrics.h"
#include "gpupool/metrics/exposition.h"
#include "gpupool/runtime/prometheus_workqueue_metrics.h"
#include "support/promtool.h"

namespace gpupool::metrics {
namespace {

// Every family the operator exports, each with values of every shape.
void populate(Registry& registry) {
  ControllerMetrics controller(registry);
  auto pools = controller.for_controller("gpupool");
  pools.reconcile_success.inc(12);
  pools.reconcile_error.inc(2);
  pools.reconcile_requeue.inc();
  pools.reconcile_requeue_after.inc(3);
  pools.reconcile_errors.inc(2);
  for (double seconds : {0.001, 0.02, 0.3, 4.0, 75.0}) pools.reconcile_time_seconds.observe(seconds);
  pools.active_workers.set(1);
  pools.max_concurrent_reconciles.set(2);
  controller.for_controller("node-observer");
  controller.leader_election_master_status.with({"gpupool-operator"}).set(1);
  controller.rest_client_requests_total.with({"200", "GET", "10.96.0.1:443"}).inc(40);
  controller.rest_client_requests_total.with({"409", "PUT", "10.96.0.1:443"}).inc();
  controller.rest_client_requests_total.with({"<error>", "GET", "10.96.0.1:443"}).inc();

  runtime::PrometheusWorkQueueMetrics provider(registry);
  auto queue = provider.for_queue("gpupool");
  queue->add();
  queue->add();
  queue->set_depth(1);
  queue->observe_queue_seconds(0.00002);
  queue->observe_work_seconds(0.4);
  queue->observe_work_seconds(30);
  queue->set_unfinished_work_seconds(0.1);
  queue->set_longest_running_processor_seconds(0.1);
  queue->retry();
  provider.for_queue("node-observer");

  // Label values that need escaping, and special values.
  registry.gauge("gpupool_test_escaping", "Help with a \\ backslash\nand a newline.", {"value"})
      .with({"quote \" backslash \\ newline \n end"})
      .set(std::nan(""));
  registry.gauge("gpupool_test_infinity", "Infinite values.", {"sign"}).with({"negative"}).set(-INFINITY);
  registry.gauge_function("gpupool_test_callback", "A gauge computed at scrape time.", [] { return 42.0; });
}

TEST(Promtool, AcceptsEveryFamilyWeExport) {
  const auto promtool = test::find_promtool();
  if (!promtool) {
    GTEST_SKIP() << "promtool not found on PATH: install the Debian package `prometheus` (tools/dev/setup.sh does)";
  }
  Registry registry;
  populate(registry);
  const std::string exposition = render_text(registry);
  for (const char* name :
       {"controller_runtime_reconcile_total", "controller_runtime_reconcile_errors_total",
        "controller_runtime_reconcile_time_seconds", "controller_runtime_active_workers",
        "controller_runtime_max_concurrent_reconciles", "leader_election_master_status", "rest_client_requests_total",
        "workqueue_depth", "workqueue_adds_total", "workqueue_queue_duration_seconds",
        "workqueue_work_duration_seconds", "workqueue_unfinished_work_seconds",
        "workqueue_longest_running_processor_seconds", "workqueue_retries_total"}) {
    EXPECT_NE(exposition.find("# TYPE " + std::string(name) + " "), std::string::npos) << name;
  }
  const test::PromtoolCheck check = test::promtool_check_metrics(*promtool, exposition);
  EXPECT_EQ(check.exit_code, 0) << "promtool says:\n" << check.output << "\non:\n" << exposition;
}

TEST(Promtool, TheHarnessSeesProblems) {
  const auto promtool = test::find_promtool();
  if (!promtool) {
    GTEST_SKIP() << "promtool not found on PATH: install the Debian package `prometheus` (tools/dev/setup.sh does)";
  }
  Registry registry;
  registry.counter("requests", "A counter without the _total suffix.").with({}).inc();
  const test::PromtoolCheck check = test::promtool_check_metrics(*promtool, render_text(registry));
  EXPECT_NE(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("_total"), std::string::npos) << check.output;
}

}  // namespace
}  // namespace gpupool::metrics
