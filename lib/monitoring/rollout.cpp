#include "gpupool/monitoring/rollout.h"

#include "gpupool/monitoring/dashboard.h"

namespace gpupool::monitoring {
namespace {

std::string join_and(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += items[i];
  }
  return out;
}

}  // namespace

const char* kind_name(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::service: return "Service";
    case ObjectKind::service_monitor: return "ServiceMonitor";
    case ObjectKind::prometheus_rule: return "PrometheusRule";
    case ObjectKind::dashboard_configmap: return "ConfigMap";
  }
  return "";
}

std::string owned_name(ObjectKind kind, const std::string& pool) {
  return kind == ObjectKind::dashboard_configmap ? dashboard_configmap_name(pool) : object_name(pool);
}

MonitoringPlan plan_monitoring(const std::string& pool, const api::Monitoring& monitoring, const AlertSettings& alerts,
                               const MonitoringOptions& options, const MonitoringApis& apis) {
  MonitoringPlan plan;
  const bool on = monitoring.enabled;
  const bool want[] = {on, on, on && monitoring.alerts.enabled, on && monitoring.dashboard.enabled};
  const bool served[] = {true, apis.service_monitors, apis.prometheus_rules, true};
  std::vector<std::string> placed, missing;
  for (std::size_t i = 0; i < std::size(kObjectKinds); ++i) {
    const ObjectKind kind = kObjectKinds[i];
    const std::string name = owned_name(kind, pool);
    const std::string what = std::string(kind_name(kind)) + " " + options.namespace_name + "/" + name;
    if (!want[i]) {
      // An API the server does not serve holds none of the pool's objects.
      if (served[i]) plan.remove.push_back(kind);
      continue;
    }
    if (!served[i]) {
      missing.push_back(kind_name(kind));
      continue;
    }
    std::string manifest;
    switch (kind) {
      case ObjectKind::service: manifest = agent_service(pool, options); break;
      case ObjectKind::service_monitor: manifest = agent_service_monitor(pool, monitoring, options); break;
      case ObjectKind::prometheus_rule: manifest = prometheus_rule(pool, alerts, options); break;
      case ObjectKind::dashboard_configmap: manifest = dashboard_configmap(pool, options); break;
    }
    plan.apply.push_back({kind, name, std::move(manifest)});
    placed.push_back(what);
  }

  if (!on) {
    plan.condition = {"False", "MonitoringDisabled", "spec.monitoring.enabled is false: the pool keeps no monitoring objects"};
  } else if (!missing.empty()) {
    std::string message = "the API server serves no monitoring.coreos.com/v1 " + join_and(missing) +
                          " (the Prometheus Operator's CRDs): ";
    std::vector<std::string> lost;
    for (const auto& m : missing) {
      lost.push_back(m == std::string("ServiceMonitor") ? "nothing scrapes the pool's agents for a Prometheus Operator"
                                                        : "the pool's alerts are not installed");
    }
    message += join_and(lost) + "; in place: " + join_and(placed) +
               ". Install the Prometheus Operator's CRDs (the pool is rolled out within a minute), or turn off what is "
               "not wanted (spec.monitoring.alerts.enabled) or scrape the Service yourself";
    plan.condition = {"False", "PrometheusOperatorMissing", message};
  } else {
    plan.condition = {"True", "RolledOut", join_and(placed)};
  }
  return plan;
}

}  // namespace gpupool::monitoring
