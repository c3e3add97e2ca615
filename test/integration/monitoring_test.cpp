// A pool's monitoring rolled out by the controller on the real control plane:
// first without the Prometheus Operator's CRDs (the pool gets its Service and
// dashboard and a condition saying what could not be rolled out), then with
// the real CRDs (test/data/prometheus-operator, from prometheus-operator
// v0.85.0: their schemas check what we write), then turned off piece by
// piece, a name that is already taken, and the pool's deletion.
#include <gtest/gtest.h>

#include <string>

#include "gpupool/kube/client.h"
#include "gpupool/kube/errors.h"
#include "gpupool/testenv/process.h"
#include "support/cluster_fixture.h"
#include "support/fleet_fixture.h"
#include "support/kube_test_helpers.h"

namespace gpupool::test {
namespace {

const kube::ResourceRef kServices{{"", "v1", "services"}, "gpupool-system", "", ""};
const kube::ResourceRef kConfigMaps{kube::core::configmaps(), "gpupool-system", "", ""};
const kube::ResourceRef kServiceMonitors{{"monitoring.coreos.com", "v1", "servicemonitors"}, "gpupool-system", "", ""};
const kube::ResourceRef kPrometheusRules{{"monitoring.coreos.com", "v1", "prometheusrules"}, "gpupool-system", "", ""};
const char* const kCrds[] = {"servicemonitors.monitoring.coreos.com", "prometheusrules.monitoring.coreos.com"};

class MonitoringTest : public FleetTest {
 protected:
  void TearDown() override {
    for (const char* crd : kCrds) cluster().kubectl_result({"delete", "crd", crd, "--ignore-not-found", "--wait=false"});
    cluster().kubectl_result({"delete", "configmap", "-n", "gpupool-system", "gpupool-mon-b-dashboard", "--ignore-not-found"});
    FleetTest::TearDown();
  }

  // The object, or nullopt when the API server has none.
  std::optional<rapidjson::Document> find(const kube::ResourceRef& ref, const std::string& name) {
    try {
      return client_->get(ref.with_name(name));
    } catch (const kube::ApiError& e) {
      if (e.is_not_found()) return std::nullopt;
      throw;
    }
  }

  void wait_exists(const kube::ResourceRef& ref, const std::string& name, bool exists, const std::string& what) {
    wait_for(60s, [&] { return find(ref, name).has_value() == exists; }, what);
  }

  // The pool's MonitoringRolledOut condition has `reason` for its current generation.
  [[nodiscard]] bool wait_monitoring(const std::string& pool, const std::string& reason) {
    return wait_pool(pool, 60s, [&](const rapidjson::Value& p) {
      const auto* c = at(p, {"status", "conditions"});
      if (!c || !c->IsArray()) return false;
      for (const auto& x : c->GetArray()) {
        if (str(x, {"type"}) != "MonitoringRolledOut") continue;
        return str(x, {"reason"}) == reason && x["observedGeneration"] == (*at(p, {"metadata", "generation"}));
      }
      return false;
    }, "MonitoringRolledOut " + reason);
  }

  void patch_pool(const std::string& pool, const std::string& merge_patch) {
    std::string out;
    ASSERT_EQ(cluster().kubectl({"patch", "gpupool", pool, "--type=merge", "-p", merge_patch}, &out), 0) << out;
  }

  bool owned_by(const rapidjson::Value& obj, const std::string& uid) {
    const auto* refs = at(obj, {"metadata", "ownerReferences"});
    if (!refs || !refs->IsArray()) return false;
    for (const auto& r : refs->GetArray()) {
      if (str(r, {"uid"}) == uid && str(r, {"kind"}) == "GPUPool" && flag(r, {"controller"})) return true;
    }
    return false;
  }
};

TEST_F(MonitoringTest, PoolMonitoringFollowsTheSpecAndTheApisTheServerServes) {
  start_controller({"--monitoring-retry-interval=1s", "--monitoring-label=release=kube-prometheus-stack"});
  apply_pool(pool_yaml("mon-a", "pool: mon-a",
                       "  monitoring:\n    enabled: true\n    scrapeInterval: 15s\n    dashboard:\n      enabled: true\n"));
  const std::string uid = str(get(kPools, "mon-a"), {"metadata", "uid"});

  // No Prometheus Operator: the Service and the dashboard, and a condition saying what is missing.
  ASSERT_TRUE(wait_monitoring("mon-a", "PrometheusOperatorMissing"));
  {
    const auto pool = get(kPools, "mon-a");
    EXPECT_EQ(condition(pool, "MonitoringRolledOut"), "False");
    const std::string message = condition(pool, "MonitoringRolledOut", "message");
    EXPECT_NE(message.find("ServiceMonitor and PrometheusRule"), std::string::npos) << message;
    EXPECT_NE(message.find("Service gpupool-system/gpupool-mon-a and ConfigMap gpupool-system/gpupool-mon-a-dashboard"),
              std::string::npos) << message;
  }
  // The pool reconciler's conditions come beside it (its first status write
  // may land after the monitoring reconciler's), and neither writer drops
  // the other's.
  EXPECT_TRUE(wait_pool("mon-a", 60s, [&](const rapidjson::Value& p) {
    return !condition(p, "Ready").empty() && condition(p, "MonitoringRolledOut", "reason") == "PrometheusOperatorMissing";
  }, "Ready beside MonitoringRolledOut"));
  auto service = find(kServices, "gpupool-mon-a");
  ASSERT_TRUE(service);
  EXPECT_TRUE(owned_by(*service, uid));
  EXPECT_EQ(str(*service, {"spec", "selector", "app.kubernetes.io/name"}), "gpupool-agent");
  EXPECT_EQ((*service)["spec"]["ports"][0]["port"].GetInt(), 8080);
  auto dashboard = find(kConfigMaps, "gpupool-mon-a-dashboard");
  ASSERT_TRUE(dashboard);
  EXPECT_TRUE(owned_by(*dashboard, uid));
  EXPECT_EQ(label(*dashboard, "grafana_dashboard"), "1");
  EXPECT_EQ(label(*dashboard, "release"), "kube-prometheus-stack");
  EXPECT_TRUE(at(*dashboard, {"data", "gpupool-mon-a.json"}));

  // The Prometheus Operator's CRDs arrive: the next try rolls out the rest.
  std::string out;
  ASSERT_EQ(cluster().kubectl({"apply", "--server-side", "-f", std::string(GPUPOOL_SOURCE_DIR) + "/test/data/prometheus-operator"},
                              &out), 0) << out;
  for (const char* crd : kCrds) {
    ASSERT_EQ(cluster().kubectl({"wait", "--for=condition=Established", "--timeout=60s", std::string("crd/") + crd}, &out), 0) << out;
  }
  ASSERT_TRUE(wait_monitoring("mon-a", "RolledOut"));
  EXPECT_EQ(condition(get(kPools, "mon-a"), "MonitoringRolledOut"), "True");
  auto monitor = find(kServiceMonitors, "gpupool-mon-a");
  ASSERT_TRUE(monitor);
  EXPECT_TRUE(owned_by(*monitor, uid));
  EXPECT_EQ(label(*monitor, "release"), "kube-prometheus-stack");
  const auto& endpoint = (*monitor)["spec"]["endpoints"][0];
  EXPECT_EQ(str(endpoint, {"interval"}), "15s");
  EXPECT_TRUE(flag(endpoint, {"honorLabels"}));
  // Kept by the real schema (a CRD without the field would prune it).
  EXPECT_TRUE(flag(*monitor, {"spec", "attachMetadata", "node"})) << kube::to_json(*monitor);
  auto rule = find(kPrometheusRules, "gpupool-mon-a");
  ASSERT_TRUE(rule);
  EXPECT_TRUE(owned_by(*rule, uid));
  EXPECT_EQ((*rule)["spec"]["groups"][0]["rules"].Size(), 10u);

  // Alerts off: the PrometheusRule goes, the rest stays.
  patch_pool("mon-a", R"({"spec":{"monitoring":{"alerts":{"enabled":false}}}})");
  wait_exists(kPrometheusRules, "gpupool-mon-a", false, "the PrometheusRule deleted");
  ASSERT_TRUE(wait_monitoring("mon-a", "RolledOut"));
  EXPECT_TRUE(find(kServiceMonitors, "gpupool-mon-a"));
  EXPECT_TRUE(find(kServices, "gpupool-mon-a"));

  // Monitoring off: everything goes.
  patch_pool("mon-a", R"({"spec":{"monitoring":{"enabled":false}}})");
  ASSERT_TRUE(wait_monitoring("mon-a", "MonitoringDisabled"));
  for (const auto* ref : {&kServices, &kServiceMonitors}) EXPECT_FALSE(find(*ref, "gpupool-mon-a"));
  EXPECT_FALSE(find(kConfigMaps, "gpupool-mon-a-dashboard"));

  // A name already taken by an object that is not the pool's: left as it is, and said.
  ASSERT_EQ(cluster().kubectl({"create", "configmap", "-n", "gpupool-system", "gpupool-mon-b-dashboard",
                               "--from-literal=mine=yes"}, &out), 0) << out;
  apply_pool(pool_yaml("mon-b", "pool: mon-b", "  monitoring:\n    dashboard:\n      enabled: true\n"));
  ASSERT_TRUE(wait_monitoring("mon-b", "NameTaken"));
  const std::string taken = condition(get(kPools, "mon-b"), "MonitoringRolledOut", "message");
  EXPECT_NE(taken.find("ConfigMap gpupool-system/gpupool-mon-b-dashboard exists and is not the pool's"), std::string::npos)
      << taken;
  auto mine = find(kConfigMaps, "gpupool-mon-b-dashboard");
  ASSERT_TRUE(mine);
  EXPECT_EQ(str(*mine, {"data", "mine"}), "yes");
  EXPECT_FALSE(at(*mine, {"metadata", "ownerReferences"}));
  EXPECT_TRUE(find(kServiceMonitors, "gpupool-mon-b"));  // the rest is rolled out all the same

  // The pool deleted: the garbage collector takes what it owned.
  ASSERT_EQ(cluster().kubectl({"delete", "gpupool", "mon-b", "--wait=false"}, &out), 0) << out;
  wait_exists(kServiceMonitors, "gpupool-mon-b", false, "the deleted pool's ServiceMonitor collected");
  wait_exists(kServices, "gpupool-mon-b", false, "the deleted pool's Service collected");
  EXPECT_TRUE(find(kConfigMaps, "gpupool-mon-b-dashboard"));  // not the pool's: kept
}

}  // namespace
}  // namespace gpupool::test
