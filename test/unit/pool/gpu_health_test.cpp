// judge_gpu_health, parse_health_reason and rule_action, as tables and timed
// sequences.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "gpupool/pool/gpu_health.h"

namespace gpupool::pool {
namespace {

using namespace std::chrono_literals;
using api::GPUHealth;
using api::HealthAction;
using Strings = std::vector<std::string>;

const HealthTime T0 = std::chrono::sys_days{std::chrono::year{2026} / 5 / 1} + 10h;

// XIDs 48 and 79 cordon, 94 taints, 13 is recorded only; temperature warns
// above 85 and taints above 95; ECC cordons; recovery 10m.
api::HealthRules rules() {
  api::HealthRules r;
  r.xids = {api::XIDRule{{48, 79}, HealthAction::cordon}, api::XIDRule{{94}, HealthAction::taint},
            api::XIDRule{{13}, HealthAction::none}};
  r.temperature = api::TemperatureRule{85, 95, HealthAction::taint};
  r.ecc = api::ECCRule{1000, 1, HealthAction::cordon};
  r.recovery_period = api::Duration::literal("10m");
  return r;
}

GpuObservation xids(std::vector<XidObservation> events) {
  GpuObservation o;
  o.xids = std::move(events);
  return o;
}
GpuObservation temperature(int celsius) {
  GpuObservation o;
  o.temperature_celsius = celsius;
  return o;
}
GpuObservation uncorrectable(std::int64_t n) {
  GpuObservation o;
  o.ecc_uncorrectable = n;
  return o;
}
GpuObservation correctable(std::int64_t n) {
  GpuObservation o;
  o.ecc_correctable_last_day = n;
  return o;
}

struct Case {
  std::string name;
  api::HealthRules rules;
  GpuObservation observed;
  GPUHealth health;
  HealthAction action;
  Strings reasons;
};

TEST(GpuHealth, OneJudgment) {
  auto ecc_off = rules();
  ecc_off.ecc->uncorrectable_errors = 0;
  auto temperature_none = rules();
  temperature_none.temperature->action = HealthAction::none;
  const std::string clears = "; clears at 2026-05-01T10:10:00Z";
  const std::vector<Case> cases = {
      {"nothing seen", rules(), {}, GPUHealth::healthy, HealthAction::none, {}},
      {"no rules", api::HealthRules{}, xids({{79, T0}}), GPUHealth::healthy, HealthAction::none, {}},
      {"listed XID cordons", rules(), xids({{79, T0}}), GPUHealth::unhealthy, HealthAction::cordon,
       {"XID 79 at 2026-05-01T10:00:00Z: GPU has fallen off the bus" + clears}},
      {"listed XID taints", rules(), xids({{94, T0}}), GPUHealth::unhealthy, HealthAction::taint,
       {"XID 94 at 2026-05-01T10:00:00Z: Contained ECC error" + clears}},
      {"unlisted XID is ignored", rules(), xids({{31, T0}}), GPUHealth::healthy, HealthAction::none, {}},
      {"XID whose action is None only degrades", rules(), xids({{13, T0}}), GPUHealth::degraded, HealthAction::none,
       {"XID 13 at 2026-05-01T10:00:00Z: Graphics Engine Exception" + clears}},
      {"XID without a known meaning", [] { auto r = rules(); r.xids[0].codes.push_back(1000); return r; }(),
       xids({{1000, T0}}), GPUHealth::unhealthy, HealthAction::cordon, {"XID 1000 at 2026-05-01T10:00:00Z" + clears}},
      {"XID older than the recovery period is over", rules(), xids({{79, T0 - 10min}}), GPUHealth::healthy,
       HealthAction::none, {}},
      {"XID just inside the recovery period", rules(), xids({{79, T0 - 9min}}), GPUHealth::unhealthy,
       HealthAction::cordon,
       {"XID 79 at 2026-05-01T09:51:00Z: GPU has fallen off the bus; clears at 2026-05-01T10:01:00Z"}},
      {"XID from the future counts from now", rules(), xids({{79, T0 + 1h}}), GPUHealth::unhealthy,
       HealthAction::cordon, {"XID 79 at 2026-05-01T10:00:00Z: GPU has fallen off the bus" + clears}},
      {"repeats of one XID are one cause, at its last time", rules(), xids({{79, T0 - 2min}, {79, T0}, {79, T0 - 1min}}),
       GPUHealth::unhealthy, HealthAction::cordon,
       {"XID 79 at 2026-05-01T10:00:00Z: GPU has fallen off the bus" + clears}},
      {"no uncorrectable ECC errors", rules(), uncorrectable(0), GPUHealth::healthy, HealthAction::none, {}},
      {"uncorrectable ECC errors at the threshold", rules(), uncorrectable(1), GPUHealth::unhealthy,
       HealthAction::cordon, {"1 uncorrectable ECC errors, threshold 1"}},
      {"uncorrectable ECC errors above the threshold", rules(), uncorrectable(12), GPUHealth::unhealthy,
       HealthAction::cordon, {"12 uncorrectable ECC errors, threshold 1"}},
      {"uncorrectable threshold 0 turns the check off", ecc_off, uncorrectable(12), GPUHealth::healthy,
       HealthAction::none, {}},
      {"correctable ECC errors at the daily threshold", rules(), correctable(1000), GPUHealth::healthy,
       HealthAction::none, {}},
      {"correctable ECC errors above the daily threshold", rules(), correctable(1001), GPUHealth::unhealthy,
       HealthAction::cordon, {"1001 correctable ECC errors in 24 h, threshold 1000"}},
      {"temperature at warning", rules(), temperature(85), GPUHealth::healthy, HealthAction::none, {}},
      {"temperature above warning degrades", rules(), temperature(86), GPUHealth::degraded, HealthAction::none,
       {"temperature 86 °C above warning 85 °C"}},
      {"temperature at critical only degrades", rules(), temperature(95), GPUHealth::degraded, HealthAction::none,
       {"temperature 95 °C above warning 85 °C"}},
      {"temperature above critical: the warning is not repeated", rules(), temperature(97), GPUHealth::unhealthy,
       HealthAction::taint, {"temperature 97 °C above critical 95 °C"}},
      {"temperature above critical with action None degrades", temperature_none, temperature(97),
       GPUHealth::degraded, HealthAction::none, {"temperature 97 °C above critical 95 °C"}},
      {"several causes: Unhealthy first, the strongest action wins",
       rules(),
       [] {
         auto o = xids({{13, T0}, {94, T0}, {79, T0 - 1min}});
         o.temperature_celsius = 97;
         o.ecc_uncorrectable = 3;
         return o;
       }(),
       GPUHealth::unhealthy,
       HealthAction::cordon,
       {"XID 79 at 2026-05-01T09:59:00Z: GPU has fallen off the bus; clears at 2026-05-01T10:09:00Z",
        "XID 94 at 2026-05-01T10:00:00Z: Contained ECC error" + clears, "temperature 97 °C above critical 95 °C",
        "3 uncorrectable ECC errors, threshold 1", "XID 13 at 2026-05-01T10:00:00Z: Graphics Engine Exception" + clears}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto j = judge_gpu_health(c.rules, {}, c.observed, T0);
    EXPECT_EQ(j.health, c.health);
    EXPECT_EQ(j.action, c.action);
    EXPECT_EQ(j.reasons, c.reasons);
    EXPECT_EQ(j.unhealthy_since.has_value(), c.health == GPUHealth::unhealthy);
    EXPECT_EQ(j.next_check.has_value(), c.health != GPUHealth::healthy);
    for (const auto& r : j.reasons) {
      EXPECT_LT(r.size(), 256u) << r;
      EXPECT_TRUE(parse_health_reason(r).has_value()) << r;
    }
  }
}

// Judges `steps` in turn, each with the memory the previous one left.
struct Step {
  HealthTime at;
  GpuObservation observed;
  GPUHealth health;
};

GpuHealthJudgment run(const api::HealthRules& r, const std::vector<Step>& steps, const std::string& name) {
  GpuHealthMemory memory;
  GpuHealthJudgment j;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    j = judge_gpu_health(r, memory, steps[i].observed, steps[i].at);
    EXPECT_EQ(j.health, steps[i].health) << name << ", step " << i;
    memory = j.memory;
  }
  return j;
}

TEST(GpuHealth, TemperatureRecoversAfterTheRecoveryPeriodBelowCritical) {
  const auto r = rules();
  auto j = run(r,
               {{T0, temperature(97), GPUHealth::unhealthy},
                {T0 + 1min, temperature(99), GPUHealth::unhealthy},
                {T0 + 2min, temperature(60), GPUHealth::unhealthy},
                {T0 + 10min, temperature(60), GPUHealth::unhealthy},
                {T0 + 11min, temperature(60), GPUHealth::healthy}},
               "cooling down");
  EXPECT_EQ(j.healthy_since, T0 + 11min);  // 10m after the last judgment above critical (T0+1m)
  EXPECT_TRUE(j.reasons.empty());

  // While the condition is gone but still counted, the reason names the worst
  // value and when it clears, and next_check says when to look again.
  j = run(r, {{T0, temperature(97), GPUHealth::unhealthy}, {T0 + 1min, temperature(99), GPUHealth::unhealthy},
              {T0 + 2min, temperature(60), GPUHealth::unhealthy}},
          "cooling down, half way");
  EXPECT_EQ(j.reasons, (Strings{"temperature 99 °C above critical 95 °C; clears at 2026-05-01T10:11:00Z"}));
  EXPECT_EQ(j.next_check, T0 + 11min);
  EXPECT_EQ(j.unhealthy_since, T0);
  EXPECT_EQ(j.action, HealthAction::taint);
}

TEST(GpuHealth, FlappingAroundCriticalStaysOneEpisode) {
  const auto j = run(rules(),
                     {{T0, temperature(97), GPUHealth::unhealthy},
                      {T0 + 5min, temperature(90), GPUHealth::unhealthy},
                      {T0 + 8min, temperature(96), GPUHealth::unhealthy},
                      {T0 + 17min, temperature(80), GPUHealth::unhealthy}},
                     "flapping");
  EXPECT_EQ(j.unhealthy_since, T0);
  EXPECT_EQ(j.next_check, T0 + 18min);
  EXPECT_EQ(j.reasons, (Strings{"temperature 97 °C above critical 95 °C; clears at 2026-05-01T10:18:00Z"}));
}

TEST(GpuHealth, AfterCriticalTheWarningMayOutlastIt) {
  // 97 then 90 (above warning, not critical): Unhealthy until 10m after the
  // last critical reading, then Degraded until 10m after the last warm one.
  run(rules(),
      {{T0, temperature(97), GPUHealth::unhealthy},
       {T0 + 5min, temperature(90), GPUHealth::unhealthy},
       {T0 + 10min, temperature(70), GPUHealth::degraded},
       {T0 + 15min, temperature(70), GPUHealth::healthy}},
      "critical then warm");
}

TEST(GpuHealth, AnXidCountsForTheRecoveryPeriodAfterItsLastOccurrence) {
  auto j = run(rules(),
               {{T0, xids({{79, T0}}), GPUHealth::unhealthy},
                {T0 + 5min, {}, GPUHealth::unhealthy},
                {T0 + 7min, xids({{79, T0 + 7min}}), GPUHealth::unhealthy},
                {T0 + 16min, {}, GPUHealth::unhealthy},
                {T0 + 17min, {}, GPUHealth::healthy}},
               "a second XID 79");
  EXPECT_EQ(j.healthy_since, T0 + 17min);
  // Healthy stays healthy, since the same time.
  j = judge_gpu_health(rules(), j.memory, {}, T0 + 1h);
  EXPECT_EQ(j.health, GPUHealth::healthy);
  EXPECT_EQ(j.healthy_since, T0 + 17min);
}

TEST(GpuHealth, UncorrectableErrorsCountUntilTheGpuIsReset) {
  const auto j = run(rules(),
                     {{T0, uncorrectable(2), GPUHealth::unhealthy},
                      {T0 + 30min, uncorrectable(2), GPUHealth::unhealthy},
                      {T0 + 31min, uncorrectable(0), GPUHealth::unhealthy},  // reset
                      {T0 + 40min, uncorrectable(0), GPUHealth::healthy}},
                     "ECC until reset");
  EXPECT_EQ(j.healthy_since, T0 + 40min);
}

TEST(GpuHealth, NothingMeasuredKeepsWhatIsRemembered) {
  // A scrape that failed (no temperature) neither clears nor extends.
  run(rules(),
      {{T0, temperature(97), GPUHealth::unhealthy},
       {T0 + 9min, {}, GPUHealth::unhealthy},
       {T0 + 10min, {}, GPUHealth::healthy}},
      "no measurement");
}

TEST(GpuHealth, RuleChangesApplyAtOnceToWhatIsRemembered) {
  auto j = judge_gpu_health(rules(), {}, xids({{79, T0}}), T0);
  ASSERT_EQ(j.health, GPUHealth::unhealthy);
  auto without_79 = rules();
  without_79.xids[0].codes = {48};
  auto k = judge_gpu_health(without_79, j.memory, {}, T0 + 1min);
  EXPECT_EQ(k.health, GPUHealth::healthy);
  EXPECT_EQ(k.healthy_since, T0 + 1min);

  auto to_taint = rules();
  to_taint.xids[0].action = HealthAction::taint;
  k = judge_gpu_health(to_taint, j.memory, {}, T0 + 1min);
  EXPECT_EQ(k.action, HealthAction::taint);

  auto to_none = rules();
  to_none.xids[0].action = HealthAction::none;
  k = judge_gpu_health(to_none, j.memory, {}, T0 + 1min);
  EXPECT_EQ(k.health, GPUHealth::degraded);

  // A critical threshold raised above the worst reading clears it.
  j = judge_gpu_health(rules(), {}, temperature(97), T0);
  auto raised = rules();
  raised.temperature->critical_celsius = 100;
  raised.temperature->warning_celsius = 98;
  k = judge_gpu_health(raised, j.memory, {}, T0 + 1min);
  EXPECT_EQ(k.health, GPUHealth::healthy);

  // The recovery period shortened: counted from the last occurrence.
  auto shorter = rules();
  shorter.recovery_period = api::Duration::literal("1m");
  j = judge_gpu_health(rules(), {}, xids({{79, T0}}), T0);
  k = judge_gpu_health(shorter, j.memory, {}, T0 + 2min);
  EXPECT_EQ(k.health, GPUHealth::healthy);
  EXPECT_EQ(k.healthy_since, T0 + 1min);
}

TEST(GpuHealth, AtMost32Reasons) {
  api::HealthRules r = rules();
  r.xids = {api::XIDRule{{}, HealthAction::taint}};
  std::vector<XidObservation> events;
  for (int code = 1; code <= 40; ++code) {
    r.xids[0].codes.push_back(code);
    events.push_back({code, T0});
  }
  const auto j = judge_gpu_health(r, {}, xids(events), T0);
  ASSERT_EQ(j.reasons.size(), 32u);
  EXPECT_EQ(j.reasons.back(), "and 9 more causes");
  EXPECT_EQ(j.memory.causes.size(), 40u);
}

TEST(GpuHealth, OrderOfEventsDoesNotMatter) {
  std::vector<XidObservation> events = {{94, T0 - 1min}, {79, T0 - 3min}, {13, T0}, {79, T0 - 2min}, {48, T0 - 4min}};
  const auto a = judge_gpu_health(rules(), {}, xids(events), T0);
  std::reverse(events.begin(), events.end());
  const auto b = judge_gpu_health(rules(), {}, xids(events), T0);
  EXPECT_EQ(a.reasons, b.reasons);
  EXPECT_EQ(a.memory, b.memory);
  EXPECT_EQ(a.unhealthy_since, T0 - 4min);
}

TEST(GpuHealth, ParseHealthReason) {
  using K = HealthCauseKind;
  const std::vector<std::pair<std::string, std::optional<ReasonCause>>> cases = {
      {"XID 79 at 2026-05-01T10:00:00Z: GPU has fallen off the bus", ReasonCause{K::xid, 79}},
      {"XID 1000 at 2026-05-01T10:00:00Z", ReasonCause{K::xid, 1000}},
      {"XID 79", ReasonCause{K::xid, 79}},
      {"temperature 97 °C above critical 95 °C", ReasonCause{K::temperature_critical, 0}},
      {"temperature 88 °C above warning 85 °C; clears at 2026-05-01T10:10:00Z", ReasonCause{K::temperature_warning, 0}},
      {"12 uncorrectable ECC errors, threshold 1", ReasonCause{K::ecc_uncorrectable, 0}},
      {"1500 correctable ECC errors in 24 h, threshold 1000", ReasonCause{K::ecc_correctable, 0}},
      {"XID 7x", std::nullopt},
      {"XID 2048 at 2026-05-01T10:00:00Z", std::nullopt},
      {"XID ", std::nullopt},
      {"temperature", std::nullopt},
      {"temperature 97C", std::nullopt},
      {"ECC", std::nullopt},
      {"12 ECC errors", std::nullopt},
      {"", std::nullopt},
      {"99999999999999999999999 uncorrectable ECC errors", std::nullopt},
  };
  for (const auto& [text, want] : cases) EXPECT_EQ(parse_health_reason(text), want) << text;
}

TEST(GpuHealth, RuleAction) {
  const auto r = rules();
  EXPECT_EQ(rule_action(r, HealthCauseKind::xid, 79), HealthAction::cordon);
  EXPECT_EQ(rule_action(r, HealthCauseKind::xid, 94), HealthAction::taint);
  EXPECT_EQ(rule_action(r, HealthCauseKind::xid, 13), HealthAction::none);
  EXPECT_EQ(rule_action(r, HealthCauseKind::xid, 31), HealthAction::none);
  EXPECT_EQ(rule_action(r, HealthCauseKind::temperature_critical), HealthAction::taint);
  EXPECT_EQ(rule_action(r, HealthCauseKind::temperature_warning), HealthAction::none);
  EXPECT_EQ(rule_action(r, HealthCauseKind::ecc_uncorrectable), HealthAction::cordon);
  EXPECT_EQ(rule_action(r, HealthCauseKind::ecc_correctable), HealthAction::cordon);
  EXPECT_EQ(rule_action(api::HealthRules{}, HealthCauseKind::ecc_correctable), HealthAction::none);
  EXPECT_EQ(stronger(HealthAction::taint, HealthAction::cordon), HealthAction::cordon);
  EXPECT_EQ(stronger(HealthAction::taint, HealthAction::none), HealthAction::taint);
  EXPECT_EQ(stronger(HealthAction::none, HealthAction::none), HealthAction::none);
}

}  // namespace
}  // namespace gpupool::pool
