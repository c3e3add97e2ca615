// The alerts of one GPUPool with spec.monitoring.enabled and
// spec.monitoring.alerts.enabled: a monitoring.coreos.com/v1 PrometheusRule
// object_name(pool) ("gpupool-<pool>", scrape.h) with one group of alerting
// rules. Pure; the thresholds come from the pool's GPUPolicy health rules
// (alert_settings).
//
// Every alert is scoped to the pool by the label `pool`: the agents' series
// get it at scrape time (scrape.h), the controller's carry it. Alerts carry
// `pool` and `severity` (critical, warning, info) and the annotations
// `summary` and `description` (with the series' labels). Per GPU, series of
// one GPU's several users (containers) are folded with max by
// (pool, node, gpu, uuid, ...).
//
//   GPUPoolFatalXID            a fatal XID on a GPU in the last 15 minutes   for 0s    critical
//       increase(gpupool_gpu_xid_errors_total{xid=~fatal}[15m]) > 0, or a
//       series of a fatal code that did not exist 15 minutes ago (its first
//       XID: increase() sees no rise in a series' first sample)
//   GPUPoolGPUTooHot           gpupool_gpu_temperature_celsius > critical     for 5m    critical
//   GPUPoolUncorrectableECC    gpupool_gpu_ecc_errors_total{type="uncorrected"} >= threshold
//                              (the volatile count: until the GPU is reset)    for 1m    critical
//   GPUPoolNodeUpgradeFailed   gpupool_pool_rollout_nodes{state="failed"} > 0  for 1m    warning
//   GPUPoolRolloutPaused       gpupool_pool_rollout_paused == 1 with pending nodes
//                                                                 for rollout_paused_for, 1h   info
//   GPUPoolRolloutStuck        pending nodes > 0, none fewer than 10 minutes before
//                              (resets() over the gauge counts its decreases), not paused,
//                              and not waiting for a maintenance window    for rollout_stuck_for, 1h   warning
//   GPUPoolTenantNearGrant     a TenantQuota's used / granted > 0.9, per resource   for 15m   info
//   GPUPoolPodsWaitingForQuota a TenantQuota's waiting > 0                  for quota_wait_for, 15m   warning
//   GPUPoolAgentDown           up{job="gpupool-agent"} == 0                  for 5m    warning
//   GPUPoolAgentHeartbeatStale time() - the agent's Lease renewal > heartbeat_stale_after (2m)
//                                                                            for 5m    warning
//
// The controller metrics they read beyond the pool and quota gauges:
// gpupool_node_heartbeat_timestamp_seconds{pool,node} (the agent's Lease
// renewal; 0 when it has none), gpupool_pool_rollout_window_open{pool} and
// gpupool_tenantquota_info{namespace,name,pool} (pool_metrics.h, quota_metrics.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/api/gpupolicy.h"
#include "gpupool/monitoring/scrape.h"

namespace gpupool::monitoring {

// XIDs fatal when the policy lists none: double-bit ECC (48), row remapping
// (63, 64), NVLink (74), fallen off the bus (79), contained and uncontained
// ECC (94, 95); the sample GPUPolicy takes GPUs out for the same codes.
inline constexpr std::int32_t kDefaultFatalXids[] = {48, 63, 64, 74, 79, 94, 95};
inline constexpr std::int32_t kDefaultCriticalCelsius = 90;

// Metric families the rules use that the controller is to add (see above).
struct AlertSettings {
  // Sorted, unique; empty: no GPUPoolFatalXID alert.
  std::vector<std::int32_t> fatal_xids{std::begin(kDefaultFatalXids), std::end(kDefaultFatalXids)};
  std::int32_t critical_celsius = kDefaultCriticalCelsius;  // alert above it
  std::int64_t uncorrectable_ecc_errors = 1;                // alert at or above it
  double tenant_grant_ratio = 0.9;                          // used / granted above it
  std::chrono::seconds quota_wait_for{std::chrono::minutes(15)};
  std::chrono::seconds rollout_stuck_for{std::chrono::hours(1)};
  std::chrono::seconds rollout_paused_for{std::chrono::hours(1)};
  std::chrono::seconds heartbeat_stale_after{std::chrono::minutes(2)};
};

// The settings for a pool whose policy has these health rules (nullopt: no
// policy, or a policy without health rules):
// - fatal_xids: the codes of every XID rule whose action is Taint or Cordon
//   (the ones that take a GPU out); the defaults when the policy lists no
//   XID rule; empty when it lists some but none Taint or Cordon.
// - critical_celsius: temperature.criticalCelsius, else 90.
// - uncorrectable_ecc_errors: ecc.uncorrectableErrors, else 1; 0 (which
//   turns the agent's rule off) alerts at 1 all the same.
AlertSettings alert_settings(const std::optional<api::HealthRules>& health);

struct AlertRule {
  std::string alert;  // "GPUPoolFatalXID"
  std::string expr;   // PromQL
  std::chrono::seconds for_{0};
  std::string severity;     // critical, warning, info
  std::string summary;      // annotation, a template
  std::string description;  // annotation, a template
};

// The alerts for `pool`, in the order above.
std::vector<AlertRule> pool_alerts(const std::string& pool, const AlertSettings& settings);

// {"groups":[{"name":"gpupool-<pool>","rules":[...]}]}: a Prometheus rule
// file (JSON is YAML: promtool check rules reads it) and the PrometheusRule's
// spec.
std::string rule_groups_json(const std::string& pool, const AlertSettings& settings);

// The PrometheusRule object_name(pool) in options.namespace_name.
std::string prometheus_rule(const std::string& pool, const AlertSettings& settings, const MonitoringOptions& options);

}  // namespace gpupool::monitoring
