// What a GPUPool's monitoring should consist of now: the objects to apply,
// the objects of the pool to delete, and the pool's MonitoringRolledOut
// condition. Pure; the monitoring reconciler
// (pool_controller/monitoring_reconciler.h) reads the server's APIs and the
// objects that exist, calls plan_monitoring and carries it out.
//
// The pool's objects (names: scrape.h object_name, dashboard_configmap_name;
// all in MonitoringOptions::namespace_name):
//   Service         while spec.monitoring.enabled
//   ServiceMonitor  while spec.monitoring.enabled and the server serves
//                   monitoring.coreos.com/v1 servicemonitors
//   PrometheusRule  while spec.monitoring.enabled, alerts.enabled and the
//                   server serves monitoring.coreos.com/v1 prometheusrules
//   ConfigMap       (the Grafana dashboard) while spec.monitoring.enabled and
//                   dashboard.enabled
// Every other one of the four is to be deleted (when it exists and is the
// pool's: the reconciler never deletes an object it does not own).
//
// The condition (type MonitoringRolledOut, observedGeneration the pool's):
//   True  RolledOut                 everything the spec asks for is in place
//   False MonitoringDisabled        spec.monitoring.enabled is false (nothing kept)
//   False PrometheusOperatorMissing the server serves no ServiceMonitor and/or
//                                   PrometheusRule: what could not be rolled
//                                   out, what was, and what to do; nothing fails
//   False ApplyFailed               set by the reconciler (not here) when the
//                                   API server refused an object, with its words
//   False NameTaken                 set by the reconciler when an object of the
//                                   pool's name exists and is not the pool's
#pragma once

#include <string>
#include <vector>

#include "gpupool/api/common_types.h"
#include "gpupool/monitoring/prometheus_rules.h"
#include "gpupool/monitoring/scrape.h"

namespace gpupool::monitoring {

inline constexpr const char* kMonitoringCondition = "MonitoringRolledOut";

// Which of the Prometheus Operator's kinds the API server serves.
struct MonitoringApis {
  bool service_monitors = false;
  bool prometheus_rules = false;
};

enum class ObjectKind { service, service_monitor, prometheus_rule, dashboard_configmap };
inline constexpr ObjectKind kObjectKinds[] = {ObjectKind::service, ObjectKind::service_monitor,
                                              ObjectKind::prometheus_rule, ObjectKind::dashboard_configmap};

// "Service", "ServiceMonitor", "PrometheusRule", "ConfigMap".
const char* kind_name(ObjectKind kind);
// The pool's object of that kind: its name (scrape.h).
std::string owned_name(ObjectKind kind, const std::string& pool);

struct PlannedObject {
  ObjectKind kind;
  std::string name;
  std::string manifest;  // JSON, without ownerReferences
};

struct PlannedCondition {
  std::string status;  // "True", "False"
  std::string reason;
  std::string message;
};

struct MonitoringPlan {
  std::vector<PlannedObject> apply;  // in the order of kObjectKinds
  std::vector<ObjectKind> remove;    // the pool's objects that must not exist
  PlannedCondition condition;
};

// `alerts`: alert_settings(the pool's policy's health rules).
MonitoringPlan plan_monitoring(const std::string& pool, const api::Monitoring& monitoring, const AlertSettings& alerts,
                               const MonitoringOptions& options, const MonitoringApis& apis);

}  // namespace gpupool::monitoring
