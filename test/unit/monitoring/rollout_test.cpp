// What a pool's monitoring consists of for each spec and each set of APIs the
// server serves: the objects applied, the ones removed, and the condition.
#include "gpupool/monitoring/rollout.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

namespace gpupool::monitoring {
namespace {

struct Row {
  const char* name;
  bool enabled, alerts, dashboard;
  bool service_monitors, prometheus_rules;
  std::vector<ObjectKind> apply;
  std::vector<ObjectKind> remove;
  const char* status;
  const char* reason;
};

using K = ObjectKind;

TEST(PlanMonitoring, ObjectsAndConditionBySpecAndApis) {
  const std::vector<Row> rows = {
      {"everything, operator installed", true, true, true, true, true,
       {K::service, K::service_monitor, K::prometheus_rule, K::dashboard_configmap}, {}, "True", "RolledOut"},
      {"defaults: no dashboard", true, true, false, true, true,
       {K::service, K::service_monitor, K::prometheus_rule}, {K::dashboard_configmap}, "True", "RolledOut"},
      {"alerts off", true, false, false, true, true,
       {K::service, K::service_monitor}, {K::prometheus_rule, K::dashboard_configmap}, "True", "RolledOut"},
      {"no operator: Service and dashboard only", true, true, true, false, false,
       {K::service, K::dashboard_configmap}, {}, "False", "PrometheusOperatorMissing"},
      {"no operator, alerts off: the ServiceMonitor is still missing", true, false, false, false, false,
       {K::service}, {K::dashboard_configmap}, "False", "PrometheusOperatorMissing"},
      {"ServiceMonitor served, PrometheusRule not", true, true, false, true, false,
       {K::service, K::service_monitor}, {K::dashboard_configmap}, "False", "PrometheusOperatorMissing"},
      {"PrometheusRule not served but not wanted", true, false, false, true, false,
       {K::service, K::service_monitor}, {K::dashboard_configmap}, "True", "RolledOut"},
      {"monitoring off: everything served goes", false, true, true, true, true,
       {}, {K::service, K::service_monitor, K::prometheus_rule, K::dashboard_configmap}, "False", "MonitoringDisabled"},
      {"monitoring off, no operator: nothing to delete there", false, true, true, false, false,
       {}, {K::service, K::dashboard_configmap}, "False", "MonitoringDisabled"},
  };
  MonitoringOptions options;
  for (const auto& r : rows) {
    SCOPED_TRACE(r.name);
    api::Monitoring m;
    m.enabled = r.enabled;
    m.alerts.enabled = r.alerts;
    m.dashboard.enabled = r.dashboard;
    const auto plan = plan_monitoring("a100", m, AlertSettings{}, options, {r.service_monitors, r.prometheus_rules});
    std::vector<ObjectKind> applied;
    for (const auto& o : plan.apply) {
      applied.push_back(o.kind);
      EXPECT_EQ(o.name, owned_name(o.kind, "a100"));
      rapidjson::Document d;
      d.Parse(o.manifest.c_str());
      ASSERT_FALSE(d.HasParseError()) << o.manifest;
      EXPECT_EQ(std::string(d["kind"].GetString()), kind_name(o.kind));
      EXPECT_EQ(std::string(d["metadata"]["name"].GetString()), o.name);
      EXPECT_EQ(std::string(d["metadata"]["namespace"].GetString()), options.namespace_name);
    }
    EXPECT_EQ(applied, r.apply);
    EXPECT_EQ(plan.remove, r.remove);
    EXPECT_EQ(plan.condition.status, r.status);
    EXPECT_EQ(plan.condition.reason, r.reason);
    EXPECT_FALSE(plan.condition.message.empty());
  }
}

TEST(PlanMonitoring, MissingOperatorSaysWhatWasNotRolledOutAndWhatToDo) {
  api::Monitoring m;
  m.dashboard.enabled = true;
  const auto plan = plan_monitoring("a100", m, AlertSettings{}, MonitoringOptions{}, {});
  const auto& msg = plan.condition.message;
  EXPECT_NE(msg.find("ServiceMonitor and PrometheusRule"), std::string::npos) << msg;
  EXPECT_NE(msg.find("alerts are not installed"), std::string::npos) << msg;
  EXPECT_NE(msg.find("Service gpupool-system/gpupool-a100 and ConfigMap gpupool-system/gpupool-a100-dashboard"),
            std::string::npos) << msg;
  EXPECT_NE(msg.find("Install the Prometheus Operator's CRDs"), std::string::npos) << msg;
}

TEST(PlanMonitoring, RolledOutNamesEveryObject) {
  api::Monitoring m;
  MonitoringOptions options;
  options.namespace_name = "ops";
  const auto plan = plan_monitoring("a100", m, AlertSettings{}, options, {true, true});
  EXPECT_EQ(plan.condition.message,
            "Service ops/gpupool-a100, ServiceMonitor ops/gpupool-a100 and PrometheusRule ops/gpupool-a100");
}

}  // namespace
}  // namespace gpupool::monitoring
