#include "gpupool/monitoring/prometheus_rules.h"

#include <algorithm>
#include <set>

#include "json_text.h"

namespace gpupool::monitoring {
namespace {

using detail::quoted;
using std::chrono::seconds;

std::string join(const std::vector<std::int32_t>& codes, const std::string& sep) {
  std::string out;
  for (const auto c : codes) out += (out.empty() ? "" : sep) + std::to_string(c);
  return out;
}

std::string number(double v) {
  std::string s = std::to_string(v);  // "0.900000"
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string duration(seconds s) { return prometheus_duration(s); }

// Selectors and labels every expression of a pool shares.
struct Scope {
  std::string pool;  // as a PromQL string literal

  // {pool="P",extra}
  std::string sel(const std::string& extra = "") const {
    return "{pool=" + pool + (extra.empty() ? "" : "," + extra) + "}";
  }
};

}  // namespace

AlertSettings alert_settings(const std::optional<api::HealthRules>& health) {
  AlertSettings s;
  if (!health) return s;
  if (!health->xids.empty()) {
    std::set<std::int32_t> fatal;
    for (const auto& rule : health->xids) {
      if (rule.action == api::HealthAction::taint || rule.action == api::HealthAction::cordon) {
        fatal.insert(rule.codes.begin(), rule.codes.end());
      }
    }
    s.fatal_xids.assign(fatal.begin(), fatal.end());
  }
  if (health->temperature) s.critical_celsius = health->temperature->critical_celsius;
  if (health->ecc) s.uncorrectable_ecc_errors = std::max<std::int64_t>(1, health->ecc->uncorrectable_errors);
  return s;
}

std::vector<AlertRule> pool_alerts(const std::string& pool, const AlertSettings& settings) {
  const Scope p{detail::promql_string(pool)};
  const std::string gpu = "on node {{ $labels.node }} of GPU pool {{ $labels.pool }}";
  std::vector<AlertRule> out;

  if (!settings.fatal_xids.empty()) {
    const std::string series = "gpupool_gpu_xid_errors_total" + p.sel("xid=~\"" + join(settings.fatal_xids, "|") + "\"");
    const std::string by = "max by (pool, node, gpu, uuid, xid) ";
    out.push_back({"GPUPoolFatalXID",
                   by + "(increase(" + series + "[15m])) > 0\nor\n(\n  " + by + "(" + series + ")\n  unless\n  " + by +
                       "(" + series + " offset 15m)\n)",
                   seconds(0), "critical", "Fatal XID {{ $labels.xid }} on GPU {{ $labels.gpu }} of node {{ $labels.node }}",
                   "GPU {{ $labels.gpu }} ({{ $labels.uuid }}) " + gpu +
                       " reported XID {{ $labels.xid }} in the last 15 minutes. The pool treats XIDs " +
                       join(settings.fatal_xids, ", ") +
                       " as fatal: the GPU needs a reset or a replacement (kubectl get gpunode {{ $labels.node }}: "
                       "status.gpus[].healthReasons)."});
  }

  const std::string temp = std::to_string(settings.critical_celsius);
  out.push_back({"GPUPoolGPUTooHot",
                 "max by (pool, node, gpu, uuid, model) (gpupool_gpu_temperature_celsius" + p.sel() + ") > " + temp,
                 std::chrono::minutes(5), "critical", "GPU {{ $labels.gpu }} of node {{ $labels.node }} is too hot",
                 "GPU {{ $labels.gpu }} ({{ $labels.model }}, {{ $labels.uuid }}) " + gpu + " has been above " + temp +
                     " °C for 5 minutes: {{ $value }} °C now."});

  const std::string ecc = std::to_string(settings.uncorrectable_ecc_errors);
  out.push_back({"GPUPoolUncorrectableECC",
                 "max by (pool, node, gpu, uuid, model) (gpupool_gpu_ecc_errors_total" + p.sel(R"(type="uncorrected")") +
                     ") >= " + ecc,
                 std::chrono::minutes(1), "critical",
                 "Uncorrectable ECC errors on GPU {{ $labels.gpu }} of node {{ $labels.node }}",
                 "GPU {{ $labels.gpu }} ({{ $labels.model }}, {{ $labels.uuid }}) " + gpu +
                     " has {{ $value }} uncorrectable ECC errors since its driver was loaded (alerting at " + ecc +
                     "). Its memory cannot be trusted until the GPU is reset; repeated errors call for a replacement."});

  const std::string pending = "max by (pool) (gpupool_pool_rollout_nodes" + p.sel(R"(state="pending")") + ")";
  const std::string paused = "max by (pool) (gpupool_pool_rollout_paused" + p.sel() + ")";
  out.push_back({"GPUPoolNodeUpgradeFailed",
                 "max by (pool) (gpupool_pool_rollout_nodes" + p.sel(R"(state="failed")") + ") > 0",
                 std::chrono::minutes(1), "warning", "Nodes of GPU pool {{ $labels.pool }} failed their update",
                 "{{ $value }} node(s) of GPU pool {{ $labels.pool }} failed to take the pool's driver or partitioning "
                 "change; they are not retried until the spec changes or the failure is cleared (kubectl get gpunodes "
                 "shows which, and why)."});

  out.push_back({"GPUPoolRolloutPaused", paused + " == 1\nand on (pool)\n" + pending + " > 0", settings.rollout_paused_for,
                 "info", "The rollout of GPU pool {{ $labels.pool }} is paused",
                 "GPU pool {{ $labels.pool }} has been paused (spec.paused) for more than " +
                     duration(settings.rollout_paused_for) +
                     " with nodes waiting for its change. Set spec.paused to false when the change may go on."});

  out.push_back(
      {"GPUPoolRolloutStuck",
       pending + " > 0\nand on (pool)\nmax by (pool) (resets(gpupool_pool_rollout_nodes" + p.sel(R"(state="pending")") +
           "[10m])) == 0\nand on (pool)\n" + paused + " == 0\nunless on (pool)\nmax by (pool) (gpupool_pool_rollout_window_open" +
           p.sel() + ") == 0",
       settings.rollout_stuck_for, "warning", "The rollout of GPU pool {{ $labels.pool }} is not progressing",
       "{{ $value }} node(s) of GPU pool {{ $labels.pool }} wait for the pool's change and their number has not gone "
       "down for " +
           duration(settings.rollout_stuck_for) +
           ", while the rollout is not paused. The pool's status.rollout.message says why (maxUnavailable, the failure "
           "budget, agents not heartbeating, nodes not Ready)."});

  // The quota gauges carry no pool: gpupool_tenantquota_info gives it.
  const std::string to_pool = "\n* on (namespace, name) group_left (pool)\nmax by (namespace, name, pool) (gpupool_tenantquota_info" +
                              p.sel() + ")";
  const std::string quota = "{{ $labels.namespace }}/{{ $labels.name }}";
  out.push_back({"GPUPoolTenantNearGrant",
                 "(\n  max by (namespace, name, resource) (gpupool_tenantquota_used)\n  /\n  max by (namespace, name, "
                 "resource) (gpupool_tenantquota_granted > 0)\n)" +
                     to_pool + "\n> " + number(settings.tenant_grant_ratio),
                 std::chrono::minutes(15), "info", "TenantQuota " + quota + " is near its grant",
                 "TenantQuota " + quota +
                     " in GPU pool {{ $labels.pool }} uses {{ $value | humanizePercentage }} of its {{ $labels.resource }} "
                     "grant; its next pods will wait at the quota gate or borrow."});

  out.push_back({"GPUPoolPodsWaitingForQuota",
                 "max by (namespace, name, resource) (gpupool_tenantquota_waiting)" + to_pool + "\n> 0",
                 settings.quota_wait_for, "warning", "Pods of TenantQuota " + quota + " wait for quota",
                 "Pods charged to TenantQuota " + quota + " in GPU pool {{ $labels.pool }} have waited at the quota gate for more than " +
                     duration(settings.quota_wait_for) +
                     " (now {{ $value }} {{ $labels.resource }} requested). kubectl get events -n {{ $labels.namespace }} "
                     "--field-selector reason=WaitingForQuota says why."});

  out.push_back({"GPUPoolAgentDown", "up" + p.sel("job=" + detail::promql_string(kAgentJob)) + " == 0",
                 std::chrono::minutes(5), "warning", "The gpupool agent on node {{ $labels.node }} is down",
                 "Prometheus cannot scrape the gpupool agent on node {{ $labels.node }} ({{ $labels.instance }}) of GPU pool "
                 "{{ $labels.pool }}: the node's GPU metrics are missing."});

  out.push_back({"GPUPoolAgentHeartbeatStale",
                 "time() - max by (pool, node) (gpupool_node_heartbeat_timestamp_seconds" + p.sel() + ") > " +
                     std::to_string(settings.heartbeat_stale_after.count()),
                 std::chrono::minutes(5), "warning", "The gpupool agent on node {{ $labels.node }} stopped heartbeating",
                 "The Lease of the gpupool agent on node {{ $labels.node }} of GPU pool {{ $labels.pool }} was last renewed "
                 "{{ $value | humanizeDuration }} ago. The controller takes the agent for dead: the node gets no rollout "
                 "permission and its GPUs' health is not judged."});
  return out;
}

std::string rule_groups_json(const std::string& pool, const AlertSettings& settings) {
  std::string rules;
  for (const auto& a : pool_alerts(pool, settings)) {
    rules += (rules.empty() ? "" : ",");
    rules += R"({"alert":)" + quoted(a.alert) + R"(,"expr":)" + quoted(a.expr) + R"(,"for":)" + quoted(duration(a.for_)) +
             R"(,"labels":)" + detail::string_map({{"severity", a.severity}, {kPoolSeriesLabel, pool}}) +
             R"(,"annotations":)" + detail::string_map({{"summary", a.summary}, {"description", a.description}}) + "}";
  }
  return R"({"groups":[{"name":)" + quoted("gpupool-" + pool) + R"(,"rules":[)" + rules + "]}]}";
}

std::string prometheus_rule(const std::string& pool, const AlertSettings& settings, const MonitoringOptions& options) {
  return R"({"apiVersion":)" + quoted(kMonitoringApiVersion) + R"(,"kind":"PrometheusRule","metadata":{"name":)" +
         quoted(object_name(pool)) + R"(,"namespace":)" + quoted(options.namespace_name) + R"(,"labels":)" +
         detail::string_map(object_labels(pool, options)) + R"(},"spec":)" + rule_groups_json(pool, settings) + "}";
}

}  // namespace gpupool::monitoring
