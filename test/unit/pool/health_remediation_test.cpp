// decide_remediation, resolve_max_unhealthy_nodes, summarize_gpus and the
// remediation record, as tables; an XID storm across a pool, pass by pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "gpupool/pool/health_remediation.h"

namespace gpupool::pool {
namespace {

using namespace std::chrono_literals;
using api::HealthAction;
using Names = std::vector<std::string>;

const HealthTime T0 = std::chrono::sys_days{std::chrono::year{2026} / 5 / 1} + 10h;
const std::string kT0 = "2026-05-01T10:00:00Z";

std::string record(HealthAction a, HealthTime since = T0 - 1h) { return format_remediation_record({a, since}); }

// Node shorthand.
HealthNode healthy(const std::string& name) {
  HealthNode n;
  n.name = name;
  return n;
}
HealthNode sick(const std::string& name, HealthAction wanted, std::optional<HealthTime> since = std::nullopt) {
  HealthNode n = healthy(name);
  n.wanted = wanted;
  n.reason = "GPU 0: XID 79";
  n.unhealthy_since = since;
  return n;
}
HealthNode our_taint(HealthNode n) {
  n.has_unhealthy_taint = true;
  n.record = record(HealthAction::taint);
  return n;
}
HealthNode our_cordon(HealthNode n) {
  n.unschedulable = true;
  n.record = record(HealthAction::cordon);
  return n;
}
HealthNode their_cordon(HealthNode n) {
  n.unschedulable = true;
  return n;
}
HealthNode stale(HealthNode n) {
  n.status_current = false;
  return n;
}
HealthNode with_record(HealthNode n, std::string r) {
  n.record = std::move(r);
  return n;
}

RemediationSettings limit(api::IntOrString v) {
  RemediationSettings s;
  s.pool = "p";
  s.max_unhealthy_nodes = std::move(v);
  return s;
}

Names names(const std::vector<NodeRemediation>& rs) {
  Names out;
  for (const auto& r : rs) out.push_back(r.node);
  return out;
}
Names names(const std::vector<HeldBack>& hs) {
  Names out;
  for (const auto& h : hs) out.push_back(h.node);
  return out;
}

std::vector<HealthNode> pool_of(int healthy_count, std::vector<HealthNode> others) {
  for (int i = 0; i < healthy_count; ++i) others.push_back(healthy("ok-" + std::to_string(i)));
  return others;
}

struct Case {
  std::string name;
  std::vector<HealthNode> nodes;
  RemediationSettings settings;
  Names take_out, adjust, clear, held_back, taken_out, not_ours;
};

TEST(DecideRemediation, Table) {
  const auto C = HealthAction::cordon;
  const auto T = HealthAction::taint;
  const std::vector<Case> cases = {
      {"all healthy", pool_of(3, {}), limit("10%"), {}, {}, {}, {}, {}, {}},
      {"one unhealthy node is tainted", pool_of(9, {sick("a", T)}), limit("10%"), {"a"}, {}, {}, {}, {"a"}, {}},
      {"the limit as a count, longest unhealthy first",
       pool_of(7, {sick("a", T, T0 - 1min), sick("b", C, T0 - 3min), sick("c", T, T0 - 2min)}), limit(2), {"b", "c"}, {},
       {}, {"a"}, {"b", "c"}, {}},
      {"nodes without a since come last, then by name",
       pool_of(6, {sick("d", T), sick("a", T), sick("z", T, T0 - 1min), sick("b", T)}), limit(2), {"z", "a"}, {}, {},
       {"b", "d"}, {"a", "z"}, {}},
      {"the limit as a percentage rounds down", pool_of(16, {sick("a", T), sick("b", T), sick("c", T), sick("d", T)}),
       limit("15%"), {"a", "b", "c"}, {}, {}, {"d"}, {"a", "b", "c"}, {}},
      {"a percentage gives at least one node", pool_of(2, {sick("a", T), sick("b", T)}), limit("10%"), {"a"}, {}, {},
       {"b"}, {"a"}, {}},
      {"limit 0 only reports", pool_of(2, {sick("a", C)}), limit(0), {}, {}, {}, {"a"}, {}, {}},
      {"0% only reports", pool_of(2, {sick("a", C)}), limit("0%"), {}, {}, {}, {"a"}, {}, {}},
      {"nodes already out keep their place", pool_of(8, {our_taint(sick("a", T)), sick("b", T, T0 - 1h)}), limit(1), {},
       {}, {}, {"b"}, {"a"}, {}},
      {"nodes already out stay out above a lowered limit",
       pool_of(7, {our_taint(sick("a", T)), our_cordon(sick("b", C)), sick("c", T)}), limit(1), {}, {}, {}, {"c"},
       {"a", "b"}, {}},
      {"a cleared node frees its place in the same decision", pool_of(8, {our_taint(healthy("a")), sick("b", T)}),
       limit(1), {"b"}, {}, {"a"}, {}, {"b"}, {}},
      {"our cordon is lifted when healthy", {our_cordon(healthy("a"))}, limit(1), {}, {}, {"a"}, {}, {}, {}},
      {"someone else's cordon is not counted nor taken out", pool_of(8, {their_cordon(sick("a", C)), sick("b", T)}),
       limit(1), {"b"}, {}, {}, {}, {"b"}, {"a"}},
      {"someone else's cordon is never lifted", {their_cordon(healthy("a"))}, limit(1), {}, {}, {}, {}, {}, {}},
      {"an empty record is removed, the cordon left", {their_cordon(with_record(healthy("a"), ""))}, limit(1), {},
       {"a"}, {}, {}, {}, {}},
      {"our taint on a node someone else cordoned stays ours", {their_cordon(our_taint(sick("a", C)))}, limit(1), {}, {},
       {}, {}, {"a"}, {}},
      {"switch from taint to cordon", {our_taint(sick("a", C))}, limit(1), {}, {"a"}, {}, {}, {"a"}, {}},
      {"switch from cordon to taint", {our_cordon(sick("a", T))}, limit(1), {}, {"a"}, {}, {}, {"a"}, {}},
      {"uncordoned by someone while unhealthy: taken out again",
       {with_record(sick("a", C), record(HealthAction::cordon))}, limit(1), {"a"}, {}, {}, {}, {"a"}, {}},
      {"a taint without its record: the record is repaired",
       {[] { auto n = sick("a", T); n.has_unhealthy_taint = true; return n; }()}, limit(1), {}, {"a"}, {}, {}, {"a"}, {}},
      {"a stale record on a healthy node is removed", {with_record(healthy("a"), record(HealthAction::taint))}, limit(1),
       {}, {"a"}, {}, {}, {}, {}},
      {"an unreadable record is not ours", {their_cordon(with_record(healthy("a"), "Cordon yesterday"))}, limit(1), {},
       {"a"}, {}, {}, {}, {}},
      {"no agent: ours stays and counts", pool_of(8, {stale(our_taint(healthy("a"))), sick("b", T)}), limit(1), {}, {},
       {}, {"b"}, {"a"}, {}},
      {"no agent: not taken out", {stale(sick("a", T))}, limit(1), {}, {}, {}, {}, {}, {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto d = decide_remediation(c.nodes, c.settings, T0);
    EXPECT_EQ(names(d.take_out), c.take_out);
    EXPECT_EQ(names(d.adjust), c.adjust);
    EXPECT_EQ(names(d.clear), c.clear);
    EXPECT_EQ(names(d.held_back), c.held_back);
    EXPECT_EQ(d.taken_out, c.taken_out);
    EXPECT_EQ(d.not_ours, c.not_ours);
    // Nothing new is taken out beyond the limit.
    if (!d.take_out.empty()) {
      EXPECT_LE(d.taken_out.size(), static_cast<std::size_t>(d.limit));
    }
    // Nothing of anyone else's is ever undone.
    for (const auto& n : c.nodes) {
      const bool ours_cordon = n.unschedulable && n.record && parse_remediation_record(*n.record) &&
                               parse_remediation_record(*n.record)->action == HealthAction::cordon;
      for (const auto* list : {&d.adjust, &d.clear}) {
        for (const auto& r : *list) {
          if (r.node != n.name) continue;
          EXPECT_TRUE(!r.uncordon || ours_cordon) << n.name;
          EXPECT_TRUE(!r.remove_taint || n.has_unhealthy_taint) << n.name;
        }
      }
    }
  }
}

TEST(DecideRemediation, WhatChangesOnTheNode) {
  const auto d = decide_remediation({sick("a", HealthAction::taint), sick("b", HealthAction::cordon)}, limit(2), T0);
  ASSERT_EQ(d.take_out.size(), 2u);
  EXPECT_EQ(d.take_out[0], (NodeRemediation{"a", HealthAction::taint, true, false, false, false,
                                            "Taint " + kT0, kEventHealthTainted,
                                            "tainted gpupool.io/gpu-unhealthy:NoSchedule: GPU 0: XID 79 (1 of 2 "
                                            "allowed nodes of pool p)"}));
  EXPECT_EQ(d.take_out[1], (NodeRemediation{"b", HealthAction::cordon, false, false, true, false, "Cordon " + kT0,
                                            kEventHealthCordoned, "cordoned: GPU 0: XID 79 (2 of 2 allowed nodes of pool p)"}));

  // Switching keeps the original since.
  const auto since = T0 - 3h;
  auto n = our_taint(sick("a", HealthAction::cordon));
  n.record = record(HealthAction::taint, since);
  auto s = decide_remediation({n}, limit(1), T0);
  ASSERT_EQ(s.adjust.size(), 1u);
  EXPECT_EQ(s.adjust[0], (NodeRemediation{"a", HealthAction::cordon, false, true, true, false,
                                          "Cordon 2026-05-01T07:00:00Z", kEventHealthCordoned,
                                          "cordoned instead of tainted: GPU 0: XID 79"}));
  n = our_cordon(sick("a", HealthAction::taint));
  s = decide_remediation({n}, limit(1), T0);
  ASSERT_EQ(s.adjust.size(), 1u);
  EXPECT_TRUE(s.adjust[0].add_taint);
  EXPECT_TRUE(s.adjust[0].uncordon);
  EXPECT_EQ(s.adjust[0].record, "Taint 2026-05-01T09:00:00Z");

  // Clearing both forms, and a stale record: no Event for bookkeeping.
  auto both = our_cordon(healthy("a"));
  both.has_unhealthy_taint = true;
  const auto c = decide_remediation({both, with_record(healthy("b"), record(HealthAction::taint))}, limit(1), T0);
  ASSERT_EQ(c.clear.size(), 1u);
  EXPECT_EQ(c.clear[0], (NodeRemediation{"a", HealthAction::none, false, true, false, true, std::nullopt,
                                         kEventHealthCleared,
                                         "GPUs no longer unhealthy: removed the taint "
                                         "gpupool.io/gpu-unhealthy:NoSchedule and uncordoned"}));
  ASSERT_EQ(c.adjust.size(), 1u);
  NodeRemediation forget;
  forget.node = "b";
  EXPECT_EQ(c.adjust[0], forget);

  // A node that is out and stays as it is: nothing to do.
  EXPECT_TRUE(decide_remediation({our_cordon(sick("a", HealthAction::cordon))}, limit(1), T0).adjust.empty());
  EXPECT_TRUE(decide_remediation({our_taint(sick("a", HealthAction::taint))}, limit(1), T0).adjust.empty());
}

TEST(DecideRemediation, HeldBackMessageInNumbers) {
  auto nodes = pool_of(7, {our_taint(sick("a", HealthAction::taint)), our_cordon(sick("b", HealthAction::cordon)),
                           sick("c", HealthAction::taint)});
  const auto d = decide_remediation(nodes, limit("20%"), T0);
  ASSERT_EQ(d.held_back.size(), 1u);
  EXPECT_EQ(d.held_back[0].message,
            "node c has an unhealthy GPU (GPU 0: XID 79) but 2 of 2 allowed nodes of pool p are already remediated "
            "(maxUnhealthyNodes 20% of 10 nodes): reported, not taken out");
  EXPECT_EQ(d.summary, "2 of 10 nodes of pool p taken out for GPU health (limit 2); held back: c");
  EXPECT_EQ(decide_remediation(pool_of(3, {}), limit(1), T0).summary, "");
}

TEST(DecideRemediation, InputOrderDoesNotMatter) {
  std::vector<HealthNode> nodes;
  for (int i = 0; i < 12; ++i) {
    const std::string name = "n" + std::to_string(i / 10) + std::to_string(i % 10);
    if (i % 3 == 0) {
      nodes.push_back(sick(name, HealthAction::taint, T0 - std::chrono::minutes(i % 4)));
    } else if (i % 3 == 1) {
      nodes.push_back(sick(name, HealthAction::cordon));
    } else {
      nodes.push_back(healthy(name));
    }
  }
  nodes.push_back(their_cordon(sick("x", HealthAction::cordon)));
  nodes.push_back(our_taint(healthy("y")));
  const auto want = decide_remediation(nodes, limit("25%"), T0);
  std::mt19937 rng(42);
  for (int round = 0; round < 20; ++round) {
    std::shuffle(nodes.begin(), nodes.end(), rng);
    const auto got = decide_remediation(nodes, limit("25%"), T0);
    EXPECT_EQ(got.take_out, want.take_out);
    EXPECT_EQ(got.adjust, want.adjust);
    EXPECT_EQ(got.clear, want.clear);
    EXPECT_EQ(got.held_back, want.held_back);
    EXPECT_EQ(got.taken_out, want.taken_out);
    EXPECT_EQ(got.not_ours, want.not_ours);
    EXPECT_EQ(got.summary, want.summary);
  }
}

// Applies a decision to the nodes as the reconciler would patch them.
void patch_nodes(std::vector<HealthNode>& nodes, const RemediationDecision& d) {
  for (const auto* list : {&d.take_out, &d.adjust, &d.clear}) {
    for (const auto& r : *list) {
      for (auto& n : nodes) {
        if (n.name != r.node) continue;
        if (r.add_taint) n.has_unhealthy_taint = true;
        if (r.remove_taint) n.has_unhealthy_taint = false;
        if (r.cordon) n.unschedulable = true;
        if (r.uncordon) n.unschedulable = false;
        n.record = r.record;
      }
    }
  }
}

TEST(DecideRemediation, XidStormAcrossAPoolOfTen) {
  // Every node reports XID 79 (Cordon) within a minute; node n03 first.
  std::vector<HealthNode> nodes;
  for (int i = 0; i < 10; ++i) {
    const std::string name = "n0" + std::to_string(i);
    nodes.push_back(sick(name, HealthAction::cordon, T0 + std::chrono::seconds(i == 3 ? 0 : 10 + i)));
  }
  nodes[5] = their_cordon(nodes[5]);  // an administrator had cordoned n05 already
  auto d = decide_remediation(nodes, limit("10%"), T0 + 1min);
  EXPECT_EQ(d.limit, 1);
  EXPECT_EQ(names(d.take_out), (Names{"n03"}));
  EXPECT_EQ(names(d.held_back), (Names{"n00", "n01", "n02", "n04", "n06", "n07", "n08", "n09"}));
  EXPECT_EQ(d.not_ours, (Names{"n05"}));
  EXPECT_EQ(d.summary,
            "1 of 10 nodes of pool p taken out for GPU health (limit 1); held back: n00, n01, n02, n04, n06, n07, "
            "n08, n09; already cordoned by someone else: n05");
  patch_nodes(nodes, d);

  // The next passes change nothing while the storm lasts.
  d = decide_remediation(nodes, limit("10%"), T0 + 2min);
  EXPECT_TRUE(d.take_out.empty() && d.adjust.empty() && d.clear.empty());
  EXPECT_EQ(d.taken_out, (Names{"n03"}));
  EXPECT_EQ(d.held_back.size(), 8u);

  // n03 recovers: it is cleared and the next longest unhealthy takes its place.
  nodes[3].wanted = HealthAction::none;
  d = decide_remediation(nodes, limit("10%"), T0 + 20min);
  EXPECT_EQ(names(d.clear), (Names{"n03"}));
  EXPECT_TRUE(d.clear[0].uncordon);
  EXPECT_EQ(names(d.take_out), (Names{"n00"}));
  patch_nodes(nodes, d);
  EXPECT_FALSE(nodes[3].unschedulable);
  EXPECT_FALSE(nodes[3].record.has_value());

  // The administrator's cordon on n05 is never lifted, even once it is healthy.
  nodes[5].wanted = HealthAction::none;
  d = decide_remediation(nodes, limit("10%"), T0 + 30min);
  EXPECT_TRUE(std::none_of(d.clear.begin(), d.clear.end(), [](const NodeRemediation& r) { return r.node == "n05"; }));

  // A higher limit lets more out in one pass, still never all of them.
  d = decide_remediation(nodes, limit("30%"), T0 + 31min);
  EXPECT_EQ(names(d.take_out), (Names{"n01", "n02"}));
  EXPECT_EQ(d.taken_out, (Names{"n00", "n01", "n02"}));
}

TEST(ResolveMaxUnhealthyNodes, Table) {
  struct C {
    api::IntOrString value;
    int members, want;
  };
  const std::vector<C> cases = {
      {"10%", 10, 1}, {"10%", 9, 1},  {"10%", 0, 0},   {"10%", 25, 2}, {"0%", 10, 0},  {"25%", 10, 2},
      {"100%", 7, 7}, {"99%", 100, 99}, {"15%", 20, 3}, {"50%", 1, 1},  {3, 10, 3},     {0, 10, 0},
      {-1, 10, 0},    {20, 10, 20},   {"150%", 10, 10}, {"x", 10, 0},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(resolve_max_unhealthy_nodes(c.value, c.members), c.want)
        << (c.value.is_int() ? std::to_string(std::get<std::int32_t>(c.value.value))
                             : std::get<std::string>(c.value.value))
        << " of " << c.members;
  }
}

TEST(RemediationRecord, FormatAndParse) {
  EXPECT_EQ(format_remediation_record({HealthAction::cordon, T0}), "Cordon " + kT0);
  EXPECT_EQ(parse_remediation_record("Taint " + kT0), (RemediationRecord{HealthAction::taint, T0}));
  EXPECT_EQ(parse_remediation_record("Cordon 2026-05-01T12:00:00+02:00"), (RemediationRecord{HealthAction::cordon, T0}));
  for (const auto& bad : std::vector<std::string>{"", "Taint", "Cordon yesterday", "None " + kT0, "Drain " + kT0,
                                                  "taint " + kT0, kT0}) {
    EXPECT_FALSE(parse_remediation_record(bad).has_value()) << bad;
  }
  EXPECT_TRUE(is_taken_out_for_health(true, false, std::nullopt));
  EXPECT_TRUE(is_taken_out_for_health(false, true, record(HealthAction::cordon)));
  EXPECT_FALSE(is_taken_out_for_health(false, true, std::nullopt));                  // someone else's cordon
  EXPECT_FALSE(is_taken_out_for_health(false, false, record(HealthAction::cordon)));  // uncordoned by someone
  EXPECT_FALSE(is_taken_out_for_health(false, true, record(HealthAction::taint)));    // our taint is gone
}

api::GPUStatus gpu(int index, api::GPUHealth health, std::vector<std::string> reasons) {
  api::GPUStatus g;
  g.index = index;
  g.health = health;
  g.health_reasons = std::move(reasons);
  return g;
}

TEST(SummarizeGpus, Table) {
  api::HealthRules rules;
  rules.xids = {api::XIDRule{{79}, HealthAction::cordon}, api::XIDRule{{13}, HealthAction::none}};
  rules.temperature = api::TemperatureRule{85, 95, HealthAction::taint};
  const std::string xid79 = "XID 79 at 2026-05-01T10:00:00Z: GPU has fallen off the bus";
  const std::string hot = "temperature 97 °C above critical 95 °C";
  using api::GPUHealth;
  struct C {
    std::string name;
    std::vector<api::GPUStatus> gpus;
    HealthAction wanted;
    std::string reason;
    std::vector<std::int32_t> unhealthy;
  };
  const std::vector<C> cases = {
      {"no GPUs", {}, HealthAction::none, "", {}},
      {"healthy and degraded GPUs ask for nothing",
       {gpu(0, GPUHealth::healthy, {}), gpu(1, GPUHealth::degraded, {"temperature 88 °C above warning 85 °C"}),
        gpu(2, GPUHealth::unknown, {})},
       HealthAction::none, "", {}},
      {"the strongest action of the unhealthy GPUs",
       {gpu(0, GPUHealth::healthy, {}), gpu(1, GPUHealth::unhealthy, {hot}), gpu(3, GPUHealth::unhealthy, {xid79, hot})},
       HealthAction::cordon, "GPU 1: " + hot + "; GPU 3: " + xid79, {1, 3}},
      {"a cause the rules no longer list asks for nothing",
       {gpu(0, GPUHealth::unhealthy, {"XID 48 at 2026-05-01T10:00:00Z: Double Bit ECC Error"})}, HealthAction::none,
       "GPU 0: XID 48 at 2026-05-01T10:00:00Z: Double Bit ECC Error", {0}},
      {"unreadable reasons ask for nothing", {gpu(2, GPUHealth::unhealthy, {})}, HealthAction::none, "GPU 2: Unhealthy",
       {2}},
      {"at most three GPUs named",
       {gpu(0, GPUHealth::unhealthy, {hot}), gpu(1, GPUHealth::unhealthy, {hot}), gpu(2, GPUHealth::unhealthy, {hot}),
        gpu(3, GPUHealth::unhealthy, {hot}), gpu(4, GPUHealth::unhealthy, {hot})},
       HealthAction::taint, "GPU 0: " + hot + "; GPU 1: " + hot + "; GPU 2: " + hot + "; and 2 more GPUs",
       {0, 1, 2, 3, 4}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto s = summarize_gpus(rules, c.gpus);
    EXPECT_EQ(s.wanted, c.wanted);
    EXPECT_EQ(s.reason, c.reason);
    EXPECT_EQ(s.unhealthy_gpus, c.unhealthy);
  }
}

TEST(SummarizeGpus, ReadsBackWhatTheAgentJudged) {
  // The agent's reasons, through the status, give the controller the agent's action.
  api::HealthRules rules;
  rules.xids = {api::XIDRule{{79}, HealthAction::cordon}, api::XIDRule{{94}, HealthAction::taint}};
  rules.temperature = api::TemperatureRule{85, 95, HealthAction::taint};
  rules.ecc = api::ECCRule{1000, 1, HealthAction::taint};
  for (const auto& observed : std::vector<GpuObservation>{
           {{{94, T0}}, std::nullopt, std::nullopt, std::nullopt},
           {{{79, T0}}, 97, 2, 5000},
           {{}, 97, std::nullopt, std::nullopt},
           {{}, std::nullopt, 3, std::nullopt},
           {{}, std::nullopt, std::nullopt, 1001},
       }) {
    const auto j = judge_gpu_health(rules, {}, observed, T0);
    const auto s = summarize_gpus(rules, {gpu(0, j.health, j.reasons)});
    EXPECT_EQ(s.wanted, j.action) << j.reasons.front();
  }
}

}  // namespace
}  // namespace gpupool::pool
