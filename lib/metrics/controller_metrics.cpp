#include "gpupool/metrics/controller_metrics.h"

namespace gpupool::metrics {

std::vector<double> reconcile_time_buckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6,
          0.7,   0.8,  0.9,   1.0,  1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5,
          6,     7,    8,     9,    10,  15,   20,  25,   30,  40,  50,  60};
}

// Help texts are controller-runtime's, word for word.
ControllerMetrics::ControllerMetrics(Registry& registry)
    : reconcile_total(registry.counter("controller_runtime_reconcile_total",
                                       "Total number of reconciliations per controller", {"controller", "result"})),
      reconcile_errors_total(registry.counter("controller_runtime_reconcile_errors_total",
                                              "Total number of reconciliation errors per controller", {"controller"})),
      reconcile_time_seconds(registry.histogram("controller_runtime_reconcile_time_seconds",
                                                "Length of time per reconciliation per controller", {"controller"},
                                                reconcile_time_buckets())),
      active_workers(registry.gauge("controller_runtime_active_workers",
                                    "Number of currently used workers per controller", {"controller"})),
      max_concurrent_reconciles(registry.gauge("controller_runtime_max_concurrent_reconciles",
                                               "Maximum number of concurrent reconciles per controller",
                                               {"controller"})),
      leader_election_master_status(registry.gauge(
          "leader_election_master_status",
          "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates "
          "master. 'name' is the string used to identify the lease. Please make sure to group by name.",
          {"name"})),
      rest_client_requests_total(registry.counter("rest_client_requests_total",
                                                  "Number of HTTP requests, partitioned by status code, method, and "
                                                  "host.",
                                                  {"code", "method", "host"})) {}

ControllerChildren ControllerMetrics::for_controller(const std::string& controller) {
  return ControllerChildren{
      .reconcile_success = reconcile_total.with({controller, std::string(reconcile_result::kSuccess)}),
      .reconcile_error = reconcile_total.with({controller, std::string(reconcile_result::kError)}),
      .reconcile_requeue = reconcile_total.with({controller, std::string(reconcile_result::kRequeue)}),
      .reconcile_requeue_after = reconcile_total.with({controller, std::string(reconcile_result::kRequeueAfter)}),
      .reconcile_errors = reconcile_errors_total.with({controller}),
      .reconcile_time_seconds = reconcile_time_seconds.with({controller}),
      .active_workers = active_workers.with({controller}),
      .max_concurrent_reconciles = max_concurrent_reconciles.with({controller}),
  };
}

ControllerMetrics& controller_metrics() {
  static ControllerMetrics* const metrics = new ControllerMetrics(default_registry());
  return *metrics;
}

}  // namespace gpupool::metrics
