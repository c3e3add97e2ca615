// The metric families controller-runtime exposes, under the same names, kinds,
// label names and buckets, so that dashboards and alerts written for
// controller-runtime operators work on this one:
//
//   controller_runtime_reconcile_total{controller,result}      counter
//       result: success, error, requeue, requeue_after
//   controller_runtime_reconcile_errors_total{controller}      counter
//   controller_runtime_reconcile_time_seconds{controller}      histogram
//       controller-runtime's buckets: 0.005 .. 60 (40 bounds)
//   controller_runtime_active_workers{controller}              gauge
//   controller_runtime_max_concurrent_reconciles{controller}   gauge
//   leader_election_master_status{name}                        gauge, 1 leading, 0 not
//   rest_client_requests_total{code,method,host}               counter
//       code: the HTTP status ("200"), or "<error>" when no response came
//       (client-go's convention); method: "GET", "POST", ...; host: the API
//       server's host:port.
//
// Checked against controller-runtime's pkg/internal/controller/metrics,
// pkg/metrics/{leaderelection,client_go_adapter}.go and component-base's
// restclient metrics; label sets are identical. Where we differ: we have no
// native histograms (controller-runtime also offers those on the reconcile
// time), and we do not export controller_runtime_terminal_reconcile_errors_total,
// controller_runtime_reconcile_panics_total, leader_election_slowpath_total,
// rest_client_request_duration_seconds or the Go process/runtime collectors.
// The work queue families are in gpupool/runtime/prometheus_workqueue_metrics.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpupool/metrics/registry.h"

namespace gpupool::metrics {

// Values of the `result` label of controller_runtime_reconcile_total.
namespace reconcile_result {
inline constexpr std::string_view kSuccess = "success";
inline constexpr std::string_view kError = "error";
inline constexpr std::string_view kRequeue = "requeue";
inline constexpr std::string_view kRequeueAfter = "requeue_after";
}  // namespace reconcile_result

// The buckets of controller_runtime_reconcile_time_seconds.
std::vector<double> reconcile_time_buckets();

// One controller's children, looked up once: no locks when updating.
struct ControllerChildren {
  Counter& reconcile_success;
  Counter& reconcile_error;
  Counter& reconcile_requeue;
  Counter& reconcile_requeue_after;
  Counter& reconcile_errors;
  Histogram& reconcile_time_seconds;
  Gauge& active_workers;
  Gauge& max_concurrent_reconciles;
};

class ControllerMetrics {
 public:
  // Registers the families in `registry` (or finds them there: constructing
  // this twice on one registry gives the same families).
  explicit ControllerMetrics(Registry& registry);

  Family<Counter>& reconcile_total;                // {controller, result}
  Family<Counter>& reconcile_errors_total;         // {controller}
  Family<Histogram>& reconcile_time_seconds;       // {controller}
  Family<Gauge>& active_workers;                   // {controller}
  Family<Gauge>& max_concurrent_reconciles;        // {controller}
  Family<Gauge>& leader_election_master_status;    // {name}
  Family<Counter>& rest_client_requests_total;     // {code, method, host}

  // The children labelled controller=`controller`; also creates them, so a
  // controller's series exist (at 0) from its start.
  ControllerChildren for_controller(const std::string& controller);
};

// ControllerMetrics on default_registry(), made on first use.
ControllerMetrics& controller_metrics();

}  // namespace gpupool::metrics
