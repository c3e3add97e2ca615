// The agent's side of GPU health: telemetry snapshots turned into
// judgments (lib/node/gpu_health_tracker.h), the Healthy condition, and what
// is advertised while a node is taken out.
#include <gtest/gtest.h>

#include "../../../lib/node/gpu_health_tracker.h"
#include "gpupool/kube/client.h"
#include "gpupool/node/node_labels.h"

namespace gpupool::node {
namespace {

using namespace std::chrono_literals;
using api::GPUHealth;
using pool::HealthTime;

const HealthTime t0 = HealthTime(std::chrono::sys_days(std::chrono::year(2026) / 5 / 1).time_since_epoch());

api::HealthRules xid_rules(std::chrono::seconds recovery = 60s) {
  api::HealthRules r;
  api::XIDRule x;
  x.codes = {79, 48};
  x.action = api::HealthAction::taint;
  r.xids.push_back(x);
  r.recovery_period = api::Duration::literal(std::to_string(recovery.count()) + "s");
  return r;
}

std::vector<GpuIdentity> two_gpus() { return {{0, "GPU-a"}, {1, "GPU-b"}}; }

TelemetrySnapshot with_xid(int gpu, int code, HealthTime at, std::int64_t count = 1) {
  TelemetrySnapshot s;
  s.sequence = 1;
  auto& g = s.xids[gpu];
  g.codes[code] = XidCount{count, at, at};
  g.last_code = code;
  g.last_at = at;
  return s;
}

TelemetrySnapshot with_metrics(HealthTime at, std::vector<backend::GpuMetrics> m, std::uint64_t seq = 1) {
  TelemetrySnapshot s;
  s.sequence = seq;
  s.metrics_at = at;
  s.metrics = std::move(m);
  return s;
}

backend::GpuMetrics metrics(int index, std::optional<double> celsius, std::optional<std::int64_t> corrected = {},
                            std::optional<std::int64_t> uncorrected = {}) {
  backend::GpuMetrics m;
  m.index = index;
  m.temperature_celsius = celsius;
  m.ecc_corrected_total = corrected;
  m.ecc_uncorrected_total = uncorrected;
  return m;
}

TEST(GpuHealthTracker, ListedXidMakesOnlyItsGpuUnhealthyUntilTheRecoveryPeriodHasPassed) {
  GpuHealthTracker t;
  const auto snap = with_xid(0, 79, t0);
  auto v = t.judge(xid_rules(), two_gpus(), &snap, t0 + 1s);
  EXPECT_EQ(v.at("GPU-a").health, GPUHealth::unhealthy);
  ASSERT_EQ(v.at("GPU-a").reasons.size(), 1u);
  EXPECT_EQ(v.at("GPU-a").reasons[0],
            "XID 79 at 2026-05-01T00:00:00Z: GPU has fallen off the bus; clears at 2026-05-01T00:01:00Z");
  EXPECT_EQ(v.at("GPU-a").next_check, t0 + 60s);
  EXPECT_EQ(v.at("GPU-b").health, GPUHealth::healthy);

  // The same snapshot again (the pass after the telemetry thread): the XID is
  // judged once, the verdict stays.
  const auto again = t.judge(xid_rules(), two_gpus(), &snap, t0 + 2s);
  EXPECT_EQ(again, v);
  // Recovered once it has been gone for recoveryPeriod.
  v = t.judge(xid_rules(), two_gpus(), &snap, t0 + 60s);
  EXPECT_EQ(v.at("GPU-a").health, GPUHealth::healthy);
  EXPECT_TRUE(v.at("GPU-a").reasons.empty());
  // A new one of the same code starts a new episode.
  const auto second = with_xid(0, 79, t0 + 90s, 2);
  v = t.judge(xid_rules(), two_gpus(), &second, t0 + 91s);
  EXPECT_EQ(v.at("GPU-a").health, GPUHealth::unhealthy);
  EXPECT_EQ(v.at("GPU-a").next_check, t0 + 150s);
}

TEST(GpuHealthTracker, UnlistedXidIsIgnored) {
  GpuHealthTracker t;
  const auto snap = with_xid(1, 13, t0);
  const auto v = t.judge(xid_rules(), two_gpus(), &snap, t0 + 1s);
  EXPECT_EQ(v.at("GPU-b").health, GPUHealth::healthy);
}

TEST(GpuHealthTracker, WithoutRulesEverythingIsHealthyAndXidsWaitForRules) {
  GpuHealthTracker t;
  const auto snap = with_xid(0, 79, t0);
  auto v = t.judge(std::nullopt, two_gpus(), &snap, t0 + 1s);
  EXPECT_EQ(v.at("GPU-a").health, GPUHealth::healthy);
  EXPECT_EQ(v.at("GPU-b").health, GPUHealth::healthy);
  // Rules arrive while the XID still counts: it is judged then.
  v = t.judge(xid_rules(), two_gpus(), &snap, t0 + 10s);
  EXPECT_EQ(v.at("GPU-a").health, GPUHealth::unhealthy);
  // Rules removed: nothing counts any more.
  v = t.judge(std::nullopt, two_gpus(), &snap, t0 + 11s);
  EXPECT_EQ(v.at("GPU-a").health, GPUHealth::healthy);
}

TEST(GpuHealthTracker, WithRulesAndNoTelemetryYetGpusAreUnknown) {
  GpuHealthTracker t;
  auto v = t.judge(xid_rules(), two_gpus(), nullptr, t0);
  EXPECT_EQ(v.at("GPU-a").health, GPUHealth::unknown);
  TelemetrySnapshot empty;  // sequence 0: nothing collected
  v = t.judge(xid_rules(), two_gpus(), &empty, t0);
  EXPECT_EQ(v.at("GPU-b").health, GPUHealth::unknown);
  const auto first = with_metrics(t0, {metrics(0, 40), metrics(1, 41)});
  v = t.judge(xid_rules(), two_gpus(), &first, t0);
  EXPECT_EQ(v.at("GPU-b").health, GPUHealth::healthy);
}

TEST(GpuHealthTracker, TheMarkFollowsTheUuidNotTheIndex) {
  GpuHealthTracker t;
  const auto snap = with_xid(0, 79, t0);
  t.judge(xid_rules(), two_gpus(), &snap, t0 + 1s);
  // GPU-a vanishes (fell off the bus): index 0 is now another board.
  auto v = t.judge(xid_rules(), {{0, "GPU-b"}}, &snap, t0 + 5s);
  EXPECT_EQ(v.at("GPU-b").health, GPUHealth::healthy) << "no other GPU inherits the mark";
  EXPECT_EQ(v.count("GPU-a"), 0u);
  // It comes back at another index, still within the recovery period.
  v = t.judge(xid_rules(), {{0, "GPU-b"}, {1, "GPU-a"}}, &snap, t0 + 10s);
  EXPECT_EQ(v.at("GPU-a").health, GPUHealth::unhealthy);
  EXPECT_EQ(v.at("GPU-b").health, GPUHealth::healthy);
}

TEST(GpuHealthTracker, TemperatureCountsWhileMeasuredAndNotFromStaleMetrics) {
  GpuHealthTrackerOptions o;
  o.metrics_fresh = 30s;
  GpuHealthTracker t(o);
  api::HealthRules rules = xid_rules();
  rules.temperature = api::TemperatureRule{85, 95, api::HealthAction::cordon};
  const auto hot = with_metrics(t0, {metrics(0, 97.4), metrics(1, 88)});
  auto v = t.judge(rules, two_gpus(), &hot, t0 + 1s);
  EXPECT_EQ(v.at("GPU-a").health, GPUHealth::unhealthy);
  EXPECT_EQ(v.at("GPU-a").reasons, (std::vector<std::string>{"temperature 97 °C above critical 95 °C"}));
  EXPECT_EQ(v.at("GPU-b").health, GPUHealth::degraded);
  // Judged again from the same (still fresh) reading: the same words, the
  // cause seen again (so it clears later).
  const auto again = t.judge(rules, two_gpus(), &hot, t0 + 10s);
  EXPECT_EQ(again.at("GPU-a").reasons, v.at("GPU-a").reasons);
  EXPECT_EQ(again.at("GPU-a").next_check, t0 + 70s);
  // The telemetry stalls: the reading is not a measurement any more.
  v = t.judge(rules, two_gpus(), &hot, t0 + 40s);
  EXPECT_EQ(v.at("GPU-a").health, GPUHealth::unhealthy);
  EXPECT_EQ(v.at("GPU-a").reasons,
            (std::vector<std::string>{"temperature 97 °C above critical 95 °C; clears at 2026-05-01T00:01:10Z"}));
}

TEST(GpuHealthTracker, CorrectableEccErrorsAreCountedOverTheLastDay) {
  GpuHealthTracker t;
  api::HealthRules rules = xid_rules();
  rules.ecc = api::ECCRule{};  // 1000 a day, 1 uncorrectable, Cordon
  std::uint64_t seq = 0;
  auto judge = [&](HealthTime at, std::int64_t corrected, std::int64_t uncorrected = 0) {
    const auto s = with_metrics(at, {metrics(0, 40, corrected, uncorrected), metrics(1, 40, 0, 0)}, ++seq);
    return t.judge(rules, two_gpus(), &s, at).at("GPU-a");
  };
  EXPECT_EQ(judge(t0, 5000).health, GPUHealth::healthy) << "what the count held before is not in the window";
  EXPECT_EQ(judge(t0 + 1h, 5900).health, GPUHealth::healthy);
  auto v = judge(t0 + 2h, 6200);
  EXPECT_EQ(v.health, GPUHealth::unhealthy);
  EXPECT_EQ(v.reasons.at(0), "1200 correctable ECC errors in 24 h, threshold 1000");
  // Still over the threshold ten seconds later (a reading between samples).
  v = judge(t0 + 2h + 10s, 6200);
  EXPECT_EQ(v.reasons.at(0), "1200 correctable ECC errors in 24 h, threshold 1000");
  // A day later the early errors have left the window: 100 in the last 24 h.
  v = judge(t0 + 27h, 6300);
  EXPECT_EQ(v.health, GPUHealth::healthy);
  // The count restarts (driver reloaded): counted from there.
  v = judge(t0 + 28h, 10);
  EXPECT_EQ(v.health, GPUHealth::healthy);
  // An uncorrectable error.
  v = judge(t0 + 29h, 10, 2);
  EXPECT_EQ(v.health, GPUHealth::unhealthy);
  EXPECT_EQ(v.reasons.at(0), "2 uncorrectable ECC errors, threshold 1");
}

api::GPUStatus status_gpu(int index, GPUHealth h, std::vector<std::string> reasons = {}) {
  api::GPUStatus g;
  g.index = index;
  g.uuid = "GPU-" + std::to_string(index);
  g.health = h;
  g.health_reasons = std::move(reasons);
  return g;
}

TEST(GpuHealthVerdicts, AppliedByUuidAndUnknownWithoutOne) {
  std::vector<api::GPUStatus> gpus{status_gpu(0, GPUHealth::unknown), status_gpu(1, GPUHealth::healthy)};
  apply_verdicts(gpus, {{"GPU-0", GpuVerdict{GPUHealth::unhealthy, {"XID 79 at ..."}, {}}}});
  EXPECT_EQ(gpus[0].health, GPUHealth::unhealthy);
  EXPECT_EQ(gpus[0].health_reasons, (std::vector<std::string>{"XID 79 at ..."}));
  EXPECT_EQ(gpus[1].health, GPUHealth::unknown);
  EXPECT_EQ(gpu_identities(gpus)[1].uuid, "GPU-1");
}

TEST(GpuHealthCondition, FalseWhileAGpuIsUnhealthyThenUnknownDegradedAndHealthy) {
  const api::Time now(std::chrono::time_point_cast<std::chrono::microseconds>(t0));
  auto c = healthy_condition({status_gpu(0, GPUHealth::unhealthy, {"XID 79 at x"}), status_gpu(1, GPUHealth::degraded, {"d"})},
                             true, 3, now);
  EXPECT_EQ(c.type, "Healthy");
  EXPECT_EQ(c.status, api::ConditionStatus::false_);
  EXPECT_EQ(c.reason, "GPUUnhealthy");
  EXPECT_EQ(c.message, "GPU 0: XID 79 at x");
  EXPECT_EQ(c.observed_generation, 3);
  c = healthy_condition({status_gpu(0, GPUHealth::unknown), status_gpu(1, GPUHealth::healthy)}, true, 3, now);
  EXPECT_EQ(c.status, api::ConditionStatus::unknown);
  EXPECT_EQ(c.reason, "NotMeasured");
  c = healthy_condition({status_gpu(0, GPUHealth::degraded, {"temperature 88 °C above warning 85 °C"})}, true, 3, now);
  EXPECT_EQ(c.status, api::ConditionStatus::true_);
  EXPECT_EQ(c.reason, "GPUDegraded");
  EXPECT_EQ(c.message, "degraded, nothing taken out: GPU 0: temperature 88 °C above warning 85 °C");
  c = healthy_condition({status_gpu(0, GPUHealth::healthy)}, true, 3, now);
  EXPECT_EQ(c.reason, "AllHealthy");
  c = healthy_condition({status_gpu(0, GPUHealth::healthy)}, false, 3, now);
  EXPECT_EQ(c.reason, "NoHealthRules");
  std::vector<api::GPUStatus> many;
  for (int i = 0; i < 5; ++i) many.push_back(status_gpu(i, GPUHealth::unhealthy, {"r"}));
  EXPECT_EQ(healthy_condition(many, true, 1, now).message, "GPU 0: r; GPU 1: r; GPU 2: r; and 2 more GPUs");
}

TEST(GpuHealthWithdrawal, TakenOutByOurTaintOrRecordedCordonOnly) {
  auto node = [](const char* json) { return kube::parse_json(json); };
  EXPECT_TRUE(node_taken_out_for_health(node(R"({"spec":{"taints":[{"key":"gpupool.io/gpu-unhealthy","effect":"NoSchedule"}]}})")));
  EXPECT_TRUE(node_taken_out_for_health(node(
      R"({"metadata":{"annotations":{"gpupool.io/health-remediation":"Cordon 2026-05-01T10:00:00Z"}},"spec":{"unschedulable":true}})")));
  EXPECT_FALSE(node_taken_out_for_health(node(R"({"spec":{"unschedulable":true}})"))) << "an administrator's cordon";
  EXPECT_FALSE(node_taken_out_for_health(node(
      R"({"metadata":{"annotations":{"gpupool.io/health-remediation":"Cordon 2026-05-01T10:00:00Z"}},"spec":{}})")));
  EXPECT_FALSE(node_taken_out_for_health(node(R"({"spec":{"taints":[{"key":"other","effect":"NoSchedule"}]}})")));
  EXPECT_FALSE(node_taken_out_for_health(node(R"({"metadata":{"name":"n"}})")));
}

backend::GpuInfo a100(int index, std::vector<backend::MigInstance> instances) {
  backend::GpuInfo g;
  g.index = index;
  g.uuid = "GPU-" + std::to_string(index);
  g.name = "NVIDIA A100-SXM4-80GB";
  g.catalog_id = "a100-sxm4-80gb";
  g.mig_capable = true;
  if (!instances.empty()) g.mig = {backend::MigMode::enabled, backend::MigMode::enabled};
  g.instances = std::move(instances);
  return g;
}

backend::MigInstance mig(const std::string& profile, int start, int gi) {
  backend::MigInstance m;
  m.profile = profile;
  m.placement_start = start;
  m.gpu_instance_id = gi;
  m.compute_instance_id = 0;
  return m;
}

TEST(GpuHealthWithdrawal, UnhealthyGpusAndTheirMigInstancesAreNotAdvertisedHealthyOnesAre) {
  backend::Inventory inv;
  inv.driver_version = "550.54.15";
  inv.gpus = {a100(0, {}), a100(1, {}), a100(2, {mig("3g.40gb", 0, 1), mig("3g.40gb", 4, 2)}),
              a100(3, {mig("3g.40gb", 0, 1), mig("1g.10gb", 4, 2)})};
  const std::vector<api::GPUStatus> status{status_gpu(0, GPUHealth::unhealthy), status_gpu(1, GPUHealth::degraded),
                                           status_gpu(2, GPUHealth::unhealthy), status_gpu(3, GPUHealth::healthy)};
  std::vector<int> withdrawn;
  const auto healthy = without_unhealthy(inv, status, &withdrawn);
  EXPECT_EQ(withdrawn, (std::vector<int>{0, 2}));
  LabelInputs in;
  in.catalog = &gpu::Catalog::builtin();
  in.inventory = &inv;
  EXPECT_EQ(extended_resources(in), (std::map<std::string, std::int64_t>{
                                        {"nvidia.com/gpu", 2}, {"nvidia.com/mig-3g.40gb", 3}, {"nvidia.com/mig-1g.10gb", 1}}));
  in.inventory = &healthy;
  EXPECT_EQ(extended_resources(in), (std::map<std::string, std::int64_t>{
                                        {"nvidia.com/gpu", 1}, {"nvidia.com/mig-3g.40gb", 1}, {"nvidia.com/mig-1g.10gb", 1}}));
  // A GPU whose UUID changed is not the one judged.
  auto other = status;
  other[0].uuid = "GPU-elsewhere";
  EXPECT_EQ(without_unhealthy(inv, other).gpus.size(), 3u);
}

}  // namespace
}  // namespace gpupool::node
