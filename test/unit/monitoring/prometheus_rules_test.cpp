// The PrometheusRule of a pool: thresholds from the policy, the manifest,
// `promtool check rules`, and `promtool test rules` with a case for every
// alert (it fires on the bad series, in its pool only, and not on the good
// ones), and every metric and label the alerts use exported (or listed as
// requested from the controller).
#include "gpupool/monitoring/prometheus_rules.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <string>

#include "exported_metrics.h"
#include "promql_names.h"
#include "promtool_files.h"

namespace gpupool::monitoring {
namespace {

using testing::Catalog;

api::HealthRules sample_health() {
  api::HealthRules h;
  h.xids = {{{48, 63, 64, 74, 79, 95}, api::HealthAction::cordon},
            {{94}, api::HealthAction::taint},
            {{13, 31, 43}, api::HealthAction::none}};
  h.temperature = api::TemperatureRule{83, 90, api::HealthAction::taint};
  h.ecc = api::ECCRule{};
  return h;
}

std::vector<std::string> names(const std::vector<AlertRule>& alerts) {
  std::vector<std::string> out;
  for (const auto& a : alerts) out.push_back(a.alert);
  return out;
}

TEST(AlertSettings, DefaultsWithoutAPolicy) {
  const auto s = alert_settings(std::nullopt);
  EXPECT_EQ(s.fatal_xids, (std::vector<std::int32_t>{48, 63, 64, 74, 79, 94, 95}));
  EXPECT_EQ(s.critical_celsius, 90);
  EXPECT_EQ(s.uncorrectable_ecc_errors, 1);
  EXPECT_EQ(s.quota_wait_for, std::chrono::minutes(15));
}

TEST(AlertSettings, FromThePolicysHealthRules) {
  api::HealthRules h;
  h.xids = {{{79, 48}, api::HealthAction::cordon}, {{94, 48}, api::HealthAction::taint}, {{13}, api::HealthAction::none}};
  h.temperature = api::TemperatureRule{80, 85, api::HealthAction::taint};
  h.ecc = api::ECCRule{1000, 3, api::HealthAction::cordon};
  auto s = alert_settings(h);
  EXPECT_EQ(s.fatal_xids, (std::vector<std::int32_t>{48, 79, 94})) << "Taint and Cordon codes, sorted, once";
  EXPECT_EQ(s.critical_celsius, 85);
  EXPECT_EQ(s.uncorrectable_ecc_errors, 3);

  h.ecc->uncorrectable_errors = 0;  // the agent's rule off: still alert at the first error
  EXPECT_EQ(alert_settings(h).uncorrectable_ecc_errors, 1);

  h.xids = {{{13, 31}, api::HealthAction::none}};  // XID rules, none fatal: no XID alert
  s = alert_settings(h);
  EXPECT_TRUE(s.fatal_xids.empty());
  const auto alerts = names(pool_alerts("p", s));
  EXPECT_EQ(std::count(alerts.begin(), alerts.end(), "GPUPoolFatalXID"), 0);

  h.xids.clear();  // no XID rules: the default codes
  EXPECT_EQ(alert_settings(h).fatal_xids, AlertSettings{}.fatal_xids);
}

TEST(PoolAlerts, EveryAlertIsScopedToThePoolWithSeverityAndAnnotations) {
  const auto alerts = pool_alerts("gpu-a", alert_settings(sample_health()));
  EXPECT_EQ(names(alerts), (std::vector<std::string>{"GPUPoolFatalXID", "GPUPoolGPUTooHot", "GPUPoolUncorrectableECC",
                                                     "GPUPoolNodeUpgradeFailed", "GPUPoolRolloutPaused",
                                                     "GPUPoolRolloutStuck", "GPUPoolTenantNearGrant",
                                                     "GPUPoolPodsWaitingForQuota", "GPUPoolAgentDown",
                                                     "GPUPoolAgentHeartbeatStale"}));
  for (const auto& a : alerts) {
    SCOPED_TRACE(a.alert);
    EXPECT_NE(a.expr.find(R"(pool="gpu-a")"), std::string::npos) << a.expr;
    EXPECT_TRUE(a.severity == "critical" || a.severity == "warning" || a.severity == "info") << a.severity;
    EXPECT_NE(a.summary.find("{{ $labels."), std::string::npos);
    EXPECT_NE(a.description.find("{{ $labels.pool }}"), std::string::npos);
  }
}

TEST(PrometheusRule, TheManifest) {
  MonitoringOptions options;
  options.namespace_name = "gpu-ops";
  options.extra_labels = {{"release", "kube-prometheus-stack"}};
  const auto text = prometheus_rule("gpu-a", AlertSettings{}, options);
  rapidjson::Document d;
  d.Parse(text.c_str());
  ASSERT_FALSE(d.HasParseError()) << text;
  EXPECT_STREQ(d["apiVersion"].GetString(), "monitoring.coreos.com/v1");
  EXPECT_STREQ(d["kind"].GetString(), "PrometheusRule");
  EXPECT_STREQ(d["metadata"]["name"].GetString(), "gpupool-gpu-a");
  EXPECT_STREQ(d["metadata"]["namespace"].GetString(), "gpu-ops");
  EXPECT_STREQ(d["metadata"]["labels"]["release"].GetString(), "kube-prometheus-stack");
  EXPECT_STREQ(d["metadata"]["labels"]["gpupool.io/pool"].GetString(), "gpu-a");
  EXPECT_STREQ(d["metadata"]["labels"]["app.kubernetes.io/managed-by"].GetString(), "gpupool-controller");
  const auto& group = d["spec"]["groups"][0];
  EXPECT_STREQ(group["name"].GetString(), "gpupool-gpu-a");
  ASSERT_EQ(group["rules"].Size(), 10u);
  const auto& hot = group["rules"][1];
  EXPECT_STREQ(hot["alert"].GetString(), "GPUPoolGPUTooHot");
  EXPECT_STREQ(hot["for"].GetString(), "5m");
  EXPECT_STREQ(hot["labels"]["severity"].GetString(), "critical");
  EXPECT_STREQ(hot["labels"]["pool"].GetString(), "gpu-a");
  EXPECT_TRUE(hot["annotations"]["summary"].IsString());
  EXPECT_STREQ(group["rules"][0]["for"].GetString(), "0s");
  EXPECT_STREQ(group["rules"][5]["for"].GetString(), "1h");
}

TEST(PrometheusRule, APoolNameThatIsNoServiceName) {
  const std::string pool = "a100.us-east";
  EXPECT_EQ(object_name(pool).rfind("gpupool-a100-us-east-", 0), 0u) << object_name(pool);
  EXPECT_NE(object_name(pool), object_name("a100-us-east"));
  const auto alerts = pool_alerts(pool, AlertSettings{});
  EXPECT_NE(alerts[0].expr.find(R"(pool="a100.us-east")"), std::string::npos);
}

TEST(PrometheusRule, PromtoolCheckRules) {
  GPUPOOL_REQUIRE_PROMTOOL(promtool);
  testing::TempDir dir;
  for (const auto& settings : {AlertSettings{}, alert_settings(sample_health())}) {
    const auto file = dir.write("rules.json", rule_groups_json("gpu-a", settings));
    const auto run = testing::run_promtool(promtool, {"check", "rules", file});
    EXPECT_EQ(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("SUCCESS: 10 rules found"), std::string::npos) << run.output;
  }
  // And the harness sees a broken rule.
  const auto bad = dir.write("bad.json", R"({"groups":[{"name":"g","rules":[{"alert":"A","expr":"up ==="}]}]})");
  EXPECT_NE(testing::run_promtool(promtool, {"check", "rules", bad}).exit_code, 0);
}

// One test group per alert: series in pool gpu-a that must fire, series that
// must not (good values, another pool, another job), and when it fires.
// Controller series carry job/instance as a scrape gives them; agent series
// carry the labels the ServiceMonitor adds.
constexpr const char* kRuleTests = R"yaml(
rule_files: [rules.json]
evaluation_interval: 1m
tests:
  # A fatal XID fires for 15 minutes after it happens, first occurrence
  # included; an old one, a non-fatal one, another pool's and an old XID
  # seen by a new pod do not.
  - interval: 1m
    input_series:
      - series: 'gpupool_gpu_xid_errors_total{pool="gpu-a",node="n1",gpu="0",uuid="GPU-0",xid="79",namespace="ml",pod="p0",container="main",job="gpupool-agent"}'
        values: '_x20 1x30'
      - series: 'gpupool_gpu_xid_errors_total{pool="gpu-a",node="n1",gpu="0",uuid="GPU-0",xid="79",namespace="ml",pod="p0",container="sidecar",job="gpupool-agent"}'
        values: '_x20 1x30'
      - series: 'gpupool_gpu_xid_errors_total{pool="gpu-a",node="n1",gpu="0",uuid="GPU-0",xid="13",job="gpupool-agent"}'
        values: '_x20 1+1x30'
      - series: 'gpupool_gpu_xid_errors_total{pool="gpu-a",node="n2",gpu="1",uuid="GPU-1",xid="79",job="gpupool-agent"}'
        values: '1x40 2x10'
      - series: 'gpupool_gpu_xid_errors_total{pool="gpu-a",node="n2",gpu="1",uuid="GPU-1",xid="79",namespace="ml",pod="p9",container="main",job="gpupool-agent"}'
        values: '_x30 1x20'
      - series: 'gpupool_gpu_xid_errors_total{pool="gpu-b",node="n3",gpu="0",uuid="GPU-3",xid="79",job="gpupool-agent"}'
        values: '_x20 1x30'
    alert_rule_test:
      - eval_time: 19m
        alertname: GPUPoolFatalXID
      - eval_time: 25m
        alertname: GPUPoolFatalXID
        exp_alerts:
          - exp_labels: {severity: critical, pool: gpu-a, node: n1, gpu: "0", uuid: GPU-0, xid: "79"}
            exp_annotations:
              summary: "Fatal XID 79 on GPU 0 of node n1"
              description: "GPU 0 (GPU-0) on node n1 of GPU pool gpu-a reported XID 79 in the last 15 minutes. The pool treats XIDs 48, 63, 64, 74, 79, 94, 95 as fatal: the GPU needs a reset or a replacement (kubectl get gpunode n1: status.gpus[].healthReasons)."
      - eval_time: 37m
        alertname: GPUPoolFatalXID
      - eval_time: 45m
        alertname: GPUPoolFatalXID
        exp_alerts:
          - exp_labels: {severity: critical, pool: gpu-a, node: n2, gpu: "1", uuid: GPU-1, xid: "79"}
            exp_annotations:
              summary: "Fatal XID 79 on GPU 1 of node n2"
              description: "GPU 1 (GPU-1) on node n2 of GPU pool gpu-a reported XID 79 in the last 15 minutes. The pool treats XIDs 48, 63, 64, 74, 79, 94, 95 as fatal: the GPU needs a reset or a replacement (kubectl get gpunode n2: status.gpus[].healthReasons)."

  # Above 90 °C for 5 minutes; two users of one GPU give one alert.
  - interval: 1m
    input_series:
      - series: 'gpupool_gpu_temperature_celsius{pool="gpu-a",node="n1",gpu="0",uuid="GPU-0",model="A100",pod="p0",container="main",job="gpupool-agent"}'
        values: '80x10 95x20'
      - series: 'gpupool_gpu_temperature_celsius{pool="gpu-a",node="n1",gpu="0",uuid="GPU-0",model="A100",pod="p0",container="sidecar",job="gpupool-agent"}'
        values: '80x10 95x20'
      - series: 'gpupool_gpu_temperature_celsius{pool="gpu-a",node="n1",gpu="1",uuid="GPU-1",model="A100",job="gpupool-agent"}'
        values: '90x30'
      - series: 'gpupool_gpu_temperature_celsius{pool="gpu-b",node="n3",gpu="0",uuid="GPU-3",model="A100",job="gpupool-agent"}'
        values: '99x30'
    alert_rule_test:
      - eval_time: 14m
        alertname: GPUPoolGPUTooHot
      - eval_time: 20m
        alertname: GPUPoolGPUTooHot
        exp_alerts:
          - exp_labels: {severity: critical, pool: gpu-a, node: n1, gpu: "0", uuid: GPU-0, model: A100}
            exp_annotations:
              summary: "GPU 0 of node n1 is too hot"
              description: "GPU 0 (A100, GPU-0) on node n1 of GPU pool gpu-a has been above 90 °C for 5 minutes: 95 °C now."

  # Uncorrectable errors (volatile count) at or above 1; corrected ones do not count.
  - interval: 1m
    input_series:
      - series: 'gpupool_gpu_ecc_errors_total{pool="gpu-a",node="n1",gpu="0",uuid="GPU-0",model="A100",type="uncorrected",job="gpupool-agent"}'
        values: '0x10 2x10'
      - series: 'gpupool_gpu_ecc_errors_total{pool="gpu-a",node="n1",gpu="0",uuid="GPU-0",model="A100",type="corrected",job="gpupool-agent"}'
        values: '0+100x20'
      - series: 'gpupool_gpu_ecc_errors_total{pool="gpu-a",node="n1",gpu="1",uuid="GPU-1",model="A100",type="uncorrected",job="gpupool-agent"}'
        values: '0x20'
      - series: 'gpupool_gpu_ecc_errors_total{pool="gpu-b",node="n3",gpu="0",uuid="GPU-3",model="A100",type="uncorrected",job="gpupool-agent"}'
        values: '5x20'
    alert_rule_test:
      - eval_time: 10m
        alertname: GPUPoolUncorrectableECC
      - eval_time: 15m
        alertname: GPUPoolUncorrectableECC
        exp_alerts:
          - exp_labels: {severity: critical, pool: gpu-a, node: n1, gpu: "0", uuid: GPU-0, model: A100}
            exp_annotations:
              summary: "Uncorrectable ECC errors on GPU 0 of node n1"
              description: "GPU 0 (A100, GPU-0) on node n1 of GPU pool gpu-a has 2 uncorrectable ECC errors since its driver was loaded (alerting at 1). Its memory cannot be trusted until the GPU is reset; repeated errors call for a replacement."

  # Failed nodes, from the controller.
  - interval: 1m
    input_series:
      - series: 'gpupool_pool_rollout_nodes{pool="gpu-a",state="failed",job="gpupool-controller",instance="c:8080"}'
        values: '0x5 2x10'
      - series: 'gpupool_pool_rollout_nodes{pool="gpu-a",state="pending",job="gpupool-controller",instance="c:8080"}'
        values: '4x15'
      - series: 'gpupool_pool_rollout_nodes{pool="gpu-b",state="failed",job="gpupool-controller",instance="c:8080"}'
        values: '3x15'
    alert_rule_test:
      - eval_time: 6m
        alertname: GPUPoolNodeUpgradeFailed
      - eval_time: 10m
        alertname: GPUPoolNodeUpgradeFailed
        exp_alerts:
          - exp_labels: {severity: warning, pool: gpu-a}
            exp_annotations:
              summary: "Nodes of GPU pool gpu-a failed their update"
              description: "2 node(s) of GPU pool gpu-a failed to take the pool's driver or partitioning change; they are not retried until the spec changes or the failure is cleared (kubectl get gpunodes shows which, and why)."

  # Paused for an hour with nodes waiting.
  - interval: 1m
    input_series:
      - series: 'gpupool_pool_rollout_paused{pool="gpu-a",job="gpupool-controller"}'
        values: '1x90'
      - series: 'gpupool_pool_rollout_nodes{pool="gpu-a",state="pending",job="gpupool-controller"}'
        values: '3x90'
    alert_rule_test:
      - eval_time: 50m
        alertname: GPUPoolRolloutPaused
      - eval_time: 70m
        alertname: GPUPoolRolloutPaused
        exp_alerts:
          - exp_labels: {severity: info, pool: gpu-a}
            exp_annotations:
              summary: "The rollout of GPU pool gpu-a is paused"
              description: "GPU pool gpu-a has been paused (spec.paused) for more than 1h with nodes waiting for its change. Set spec.paused to false when the change may go on."
  # Paused with nothing to do: no alert.
  - interval: 1m
    input_series:
      - series: 'gpupool_pool_rollout_paused{pool="gpu-a",job="gpupool-controller"}'
        values: '1x90'
      - series: 'gpupool_pool_rollout_nodes{pool="gpu-a",state="pending",job="gpupool-controller"}'
        values: '0x90'
    alert_rule_test:
      - eval_time: 70m
        alertname: GPUPoolRolloutPaused

  # Stuck: pending nodes, none fewer for an hour, not paused, window open.
  - interval: 1m
    input_series:
      - series: 'gpupool_pool_rollout_nodes{pool="gpu-a",state="pending",job="gpupool-controller"}'
        values: '3x120'
      - series: 'gpupool_pool_rollout_paused{pool="gpu-a",job="gpupool-controller"}'
        values: '0x120'
      - series: 'gpupool_pool_rollout_window_open{pool="gpu-a",job="gpupool-controller"}'
        values: '1x120'
    alert_rule_test:
      - eval_time: 50m
        alertname: GPUPoolRolloutStuck
      - eval_time: 70m
        alertname: GPUPoolRolloutStuck
        exp_alerts:
          - exp_labels: {severity: warning, pool: gpu-a}
            exp_annotations:
              summary: "The rollout of GPU pool gpu-a is not progressing"
              description: "3 node(s) of GPU pool gpu-a wait for the pool's change and their number has not gone down for 1h, while the rollout is not paused. The pool's status.rollout.message says why (maxUnavailable, the failure budget, agents not heartbeating, nodes not Ready)."
  # More nodes joining is no progress either (and no window metric: not waiting for one).
  - interval: 1m
    input_series:
      - series: 'gpupool_pool_rollout_nodes{pool="gpu-a",state="pending",job="gpupool-controller"}'
        values: '3x30 4x90'
      - series: 'gpupool_pool_rollout_paused{pool="gpu-a",job="gpupool-controller"}'
        values: '0x120'
    alert_rule_test:
      - eval_time: 70m
        alertname: GPUPoolRolloutStuck
        exp_alerts:
          - exp_labels: {severity: warning, pool: gpu-a}
            exp_annotations:
              summary: "The rollout of GPU pool gpu-a is not progressing"
              description: "4 node(s) of GPU pool gpu-a wait for the pool's change and their number has not gone down for 1h, while the rollout is not paused. The pool's status.rollout.message says why (maxUnavailable, the failure budget, agents not heartbeating, nodes not Ready)."
  # Progressing (one node fewer every 30 minutes), paused, or waiting for
  # its maintenance window: not stuck.
  - interval: 1m
    input_series:
      - series: 'gpupool_pool_rollout_nodes{pool="gpu-a",state="pending",job="gpupool-controller"}'
        values: '5x30 4x30 3x30 2x30'
      - series: 'gpupool_pool_rollout_paused{pool="gpu-a",job="gpupool-controller"}'
        values: '0x120'
      - series: 'gpupool_pool_rollout_nodes{pool="gpu-b",state="pending",job="gpupool-controller"}'
        values: '3x120'
      - series: 'gpupool_pool_rollout_paused{pool="gpu-b",job="gpupool-controller"}'
        values: '1x120'
      - series: 'gpupool_pool_rollout_nodes{pool="gpu-c",state="pending",job="gpupool-controller"}'
        values: '3x120'
      - series: 'gpupool_pool_rollout_paused{pool="gpu-c",job="gpupool-controller"}'
        values: '0x120'
      - series: 'gpupool_pool_rollout_window_open{pool="gpu-c",job="gpupool-controller"}'
        values: '0x120'
    alert_rule_test:
      - eval_time: 70m
        alertname: GPUPoolRolloutStuck
      - eval_time: 100m
        alertname: GPUPoolRolloutStuck

  # A TenantQuota of the pool above 90 % of its grant for 15 minutes.
  - interval: 1m
    input_series:
      - series: 'gpupool_tenantquota_info{namespace="ml",name="train",pool="gpu-a",job="gpupool-controller"}'
        values: '1x30'
      - series: 'gpupool_tenantquota_used{namespace="ml",name="train",resource="nvidia.com/gpu",job="gpupool-controller"}'
        values: '8x30'
      - series: 'gpupool_tenantquota_granted{namespace="ml",name="train",resource="nvidia.com/gpu",job="gpupool-controller"}'
        values: '8x30'
      - series: 'gpupool_tenantquota_used{namespace="ml",name="train",resource="gpupool.io/gpu",job="gpupool-controller"}'
        values: '19x30'
      - series: 'gpupool_tenantquota_granted{namespace="ml",name="train",resource="gpupool.io/gpu",job="gpupool-controller"}'
        values: '20x30'
      - series: 'gpupool_tenantquota_info{namespace="ml",name="dev",pool="gpu-a",job="gpupool-controller"}'
        values: '1x30'
      - series: 'gpupool_tenantquota_used{namespace="ml",name="dev",resource="nvidia.com/gpu",job="gpupool-controller"}'
        values: '7x30'
      - series: 'gpupool_tenantquota_granted{namespace="ml",name="dev",resource="nvidia.com/gpu",job="gpupool-controller"}'
        values: '8x30'
      - series: 'gpupool_tenantquota_used{namespace="ml",name="dev",resource="amd.com/gpu",job="gpupool-controller"}'
        values: '1x30'
      - series: 'gpupool_tenantquota_granted{namespace="ml",name="dev",resource="amd.com/gpu",job="gpupool-controller"}'
        values: '0x30'
      - series: 'gpupool_tenantquota_info{namespace="other",name="q",pool="gpu-b",job="gpupool-controller"}'
        values: '1x30'
      - series: 'gpupool_tenantquota_used{namespace="other",name="q",resource="nvidia.com/gpu",job="gpupool-controller"}'
        values: '8x30'
      - series: 'gpupool_tenantquota_granted{namespace="other",name="q",resource="nvidia.com/gpu",job="gpupool-controller"}'
        values: '8x30'
    alert_rule_test:
      - eval_time: 10m
        alertname: GPUPoolTenantNearGrant
      - eval_time: 20m
        alertname: GPUPoolTenantNearGrant
        exp_alerts:
          - exp_labels: {severity: info, pool: gpu-a, namespace: ml, name: train, resource: nvidia.com/gpu}
            exp_annotations:
              summary: "TenantQuota ml/train is near its grant"
              description: "TenantQuota ml/train in GPU pool gpu-a uses 100% of its nvidia.com/gpu grant; its next pods will wait at the quota gate or borrow."
          - exp_labels: {severity: info, pool: gpu-a, namespace: ml, name: train, resource: gpupool.io/gpu}
            exp_annotations:
              summary: "TenantQuota ml/train is near its grant"
              description: "TenantQuota ml/train in GPU pool gpu-a uses 95% of its gpupool.io/gpu grant; its next pods will wait at the quota gate or borrow."

  # Pods of the pool's TenantQuota waiting at the gate for 15 minutes.
  - interval: 1m
    input_series:
      - series: 'gpupool_tenantquota_info{namespace="ml",name="train",pool="gpu-a",job="gpupool-controller"}'
        values: '1x40'
      - series: 'gpupool_tenantquota_waiting{namespace="ml",name="train",resource="nvidia.com/gpu",job="gpupool-controller"}'
        values: '0x5 2x35'
      - series: 'gpupool_tenantquota_info{namespace="ml",name="dev",pool="gpu-a",job="gpupool-controller"}'
        values: '1x40'
      - series: 'gpupool_tenantquota_waiting{namespace="ml",name="dev",resource="nvidia.com/gpu",job="gpupool-controller"}'
        values: '0x40'
      - series: 'gpupool_tenantquota_info{namespace="other",name="q",pool="gpu-b",job="gpupool-controller"}'
        values: '1x40'
      - series: 'gpupool_tenantquota_waiting{namespace="other",name="q",resource="nvidia.com/gpu",job="gpupool-controller"}'
        values: '5x40'
    alert_rule_test:
      - eval_time: 18m
        alertname: GPUPoolPodsWaitingForQuota
      - eval_time: 25m
        alertname: GPUPoolPodsWaitingForQuota
        exp_alerts:
          - exp_labels: {severity: warning, pool: gpu-a, namespace: ml, name: train, resource: nvidia.com/gpu}
            exp_annotations:
              summary: "Pods of TenantQuota ml/train wait for quota"
              description: "Pods charged to TenantQuota ml/train in GPU pool gpu-a have waited at the quota gate for more than 15m (now 2 nvidia.com/gpu requested). kubectl get events -n ml --field-selector reason=WaitingForQuota says why."

  # An agent of the pool not answering for 5 minutes.
  - interval: 1m
    input_series:
      - series: 'up{job="gpupool-agent",pool="gpu-a",node="n1",instance="10.0.0.1:8080"}'
        values: '1x5 0x20'
      - series: 'up{job="gpupool-agent",pool="gpu-a",node="n2",instance="10.0.0.2:8080"}'
        values: '1x25'
      - series: 'up{job="node-exporter",pool="gpu-a",node="n2",instance="10.0.0.2:9100"}'
        values: '0x25'
      - series: 'up{job="gpupool-agent",pool="gpu-b",node="n3",instance="10.0.0.3:8080"}'
        values: '0x25'
    alert_rule_test:
      - eval_time: 9m
        alertname: GPUPoolAgentDown
      - eval_time: 15m
        alertname: GPUPoolAgentDown
        exp_alerts:
          - exp_labels: {severity: warning, pool: gpu-a, node: n1, job: gpupool-agent, instance: "10.0.0.1:8080"}
            exp_annotations:
              summary: "The gpupool agent on node n1 is down"
              description: "Prometheus cannot scrape the gpupool agent on node n1 (10.0.0.1:8080) of GPU pool gpu-a: the node's GPU metrics are missing."

  # A Lease last renewed at 5m: stale from 7m, alerting from 12m.
  - interval: 1m
    input_series:
      - series: 'gpupool_node_heartbeat_timestamp_seconds{pool="gpu-a",node="n1",job="gpupool-controller"}'
        values: '0+60x5 300x30'
      - series: 'gpupool_node_heartbeat_timestamp_seconds{pool="gpu-a",node="n2",job="gpupool-controller"}'
        values: '0+60x35'
      - series: 'gpupool_node_heartbeat_timestamp_seconds{pool="gpu-b",node="n3",job="gpupool-controller"}'
        values: '0x35'
    alert_rule_test:
      - eval_time: 10m
        alertname: GPUPoolAgentHeartbeatStale
      - eval_time: 20m
        alertname: GPUPoolAgentHeartbeatStale
        exp_alerts:
          - exp_labels: {severity: warning, pool: gpu-a, node: n1}
            exp_annotations:
              summary: "The gpupool agent on node n1 stopped heartbeating"
              description: "The Lease of the gpupool agent on node n1 of GPU pool gpu-a was last renewed 15m 0s ago. The controller takes the agent for dead: the node gets no rollout permission and its GPUs' health is not judged."
)yaml";

TEST(PrometheusRule, PromtoolTestRulesEveryAlert) {
  GPUPOOL_REQUIRE_PROMTOOL(promtool);
  testing::TempDir dir;
  dir.write("rules.json", rule_groups_json("gpu-a", alert_settings(sample_health())));
  const auto tests = dir.write("tests.yaml", kRuleTests);
  const auto run = testing::run_promtool(promtool, {"test", "rules", tests});
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("SUCCESS"), std::string::npos) << run.output;

  // Every alert has its test group.
  for (const auto& a : pool_alerts("gpu-a", AlertSettings{})) {
    EXPECT_NE(std::string(kRuleTests).find("alertname: " + a.alert + "\n        exp_alerts:"), std::string::npos)
        << a.alert << " has no firing case";
  }
}

TEST(PrometheusRule, PromtoolTestRulesSeesAWrongExpectation) {
  GPUPOOL_REQUIRE_PROMTOOL(promtool);
  testing::TempDir dir;
  // The temperature above with a threshold of 99: nothing fires, the test says it should.
  AlertSettings hotter;
  hotter.critical_celsius = 99;
  dir.write("rules.json", rule_groups_json("gpu-a", hotter));
  const auto tests = dir.write("tests.yaml", kRuleTests);
  const auto run = testing::run_promtool(promtool, {"test", "rules", tests});
  EXPECT_NE(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("GPUPoolGPUTooHot"), std::string::npos) << run.output;
}

TEST(PrometheusRule, EveryMetricAndLabelIsExported) {
  const auto catalog = testing::exported_catalog();
  for (const auto& a : pool_alerts("gpu-a", alert_settings(sample_health()))) {
    EXPECT_EQ(testing::unknown_names(a.expr, catalog), std::vector<std::string>{}) << a.alert << ":\n" << a.expr;
  }
}

}  // namespace
}  // namespace gpupool::monitoring
