// The rollout measurement's arithmetic (tools/bench/scale/rollout_figures.h):
// the limit as a node count, waves and the ideal, the overhead, the worst
// moment replayed from the recorder's events, and when a pool's status says
// the rollout is complete.
#include "scale/rollout_figures.h"

#include <gtest/gtest.h>

#include "gpupool/kube/client.h"

namespace gpupool::bench {
namespace {

TEST(RolloutFigures, MaxUnavailableAsANodeCount) {
  struct Row {
    const char* value;
    int members;
    std::optional<int> want;
  };
  for (const Row r : {Row{"10%", 25, 2}, Row{"10%", 250, 25}, Row{"10%", 3, 1}, Row{"10%", 0, 1}, Row{"100%", 7, 7},
                      Row{"0%", 10, 1}, Row{"33%", 10, 3}, Row{"3", 10, 3}, Row{"0", 10, 1}, Row{"20", 5, 20},
                      Row{"101%", 5, std::nullopt}, Row{"ten", 5, std::nullopt}, Row{"", 5, std::nullopt},
                      Row{"%", 5, std::nullopt}, Row{"-1", 5, std::nullopt}, Row{"1.5", 5, std::nullopt}}) {
    EXPECT_EQ(resolve_max_unavailable(r.value, r.members), r.want) << r.value << " of " << r.members;
  }
}

TEST(RolloutFigures, WavesIdealAndOverhead) {
  EXPECT_EQ(rollout_waves(25, 2), 13);
  EXPECT_EQ(rollout_waves(250, 25), 10);
  EXPECT_EQ(rollout_waves(3, 1), 3);
  EXPECT_EQ(rollout_waves(0, 1), 0);
  EXPECT_EQ(rollout_waves(4, 0), 4);  // a limit below 1 counts as 1
  // Pools roll in parallel: the longest decides.
  EXPECT_DOUBLE_EQ(ideal_rollout_seconds({{"a", 25, 2}, {"b", 10, 5}, {"c", 3, 1}}, 2.0), 26.0);
  EXPECT_DOUBLE_EQ(ideal_rollout_seconds({}, 2.0), 0.0);
  EXPECT_NEAR(*rollout_overhead(27.04, 26.0), 0.04, 1e-12);
  EXPECT_DOUBLE_EQ(*rollout_overhead(26.0, 26.0), 0.0);
  EXPECT_FALSE(rollout_overhead(5, 0));
}

using Kind = DisruptionEvent::Kind;

TEST(RolloutFigures, WorstMomentReplaysInResourceVersionOrder) {
  const std::map<std::string, std::string> pools = {{"a1", "a"}, {"a2", "a"}, {"a3", "a"}, {"b1", "b"}, {"b2", "b"}};
  struct Case {
    const char* what;
    std::vector<DisruptionEvent> events;
    int a, b;
    std::uint64_t a_at;
  };
  const std::vector<Case> cases = {
      {"nothing happens", {}, 0, 0, 0},
      {"one node granted, cordoned, uncordoned, withdrawn: one at a time",
       {{10, Kind::granted, "a1", true}, {11, Kind::cordoned, "a1", true}, {12, Kind::cordoned, "a1", false},
        {13, Kind::granted, "a1", false}, {14, Kind::granted, "a2", true}},
       1, 0, 10},
      {"a withdrawal before the next grant never overlaps",
       {{10, Kind::granted, "a1", true}, {20, Kind::granted, "a1", false}, {21, Kind::granted, "a2", true}}, 1, 0, 10},
      {"the streams arrive out of order: revisions decide",
       {{21, Kind::granted, "a2", true}, {10, Kind::granted, "a1", true}, {20, Kind::granted, "a1", false}}, 1, 0, 10},
      {"a grant before the withdrawal: two at once",
       {{10, Kind::granted, "a1", true}, {20, Kind::granted, "a2", true}, {21, Kind::granted, "a1", false}}, 2, 0, 20},
      {"a node still cordoned after its permission went counts",
       {{10, Kind::cordoned, "a1", true}, {11, Kind::granted, "a1", false}, {12, Kind::granted, "a3", true}}, 2, 0, 12},
      {"pools counted apart; unknown nodes ignored",
       {{10, Kind::granted, "a1", true}, {11, Kind::granted, "b1", true}, {12, Kind::granted, "b2", true},
        {13, Kind::granted, "x9", true}},
       1, 2, 10},
      {"a deleted object is no longer disrupted",
       {{10, Kind::granted, "a1", true}, {11, Kind::granted, "a1", false}, {12, Kind::granted, "a2", true}}, 1, 0, 10},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    const auto w = worst_disruption(c.events, pools);
    ASSERT_EQ(w.size(), 2u);
    EXPECT_EQ(w.at("a").disrupted, c.a);
    EXPECT_EQ(w.at("b").disrupted, c.b);
    EXPECT_EQ(w.at("a").resource_version, c.a_at);
    EXPECT_EQ(w.at("a").nodes.size(), static_cast<std::size_t>(c.a));
  }
  const auto w = worst_disruption({{10, Kind::granted, "a3", true}, {11, Kind::cordoned, "a1", true}}, pools);
  EXPECT_EQ(w.at("a").nodes, (std::vector<std::string>{"a1", "a3"}));
}

TEST(RolloutFigures, PhaseDelaysFollowEachNodeThroughItsSteps) {
  const std::map<std::string, std::string> pools = {{"a1", "a"}, {"a2", "a"}, {"b1", "b"}};
  // a1: granted at 1.0, cordoned 1.1, uncordoned 3.2, withdrawn 3.5; a2 granted at 3.7.
  // b1: granted at 1.0, cordoned 1.3, uncordoned 3.3, withdrawn 3.4 (no next in b).
  const std::vector<DisruptionEvent> events = {
      {10, Kind::granted, "a1", true, 1.0},   {11, Kind::granted, "b1", true, 1.0},
      {13, Kind::cordoned, "b1", true, 1.3},  {12, Kind::cordoned, "a1", true, 1.1},
      {14, Kind::cordoned, "a1", false, 3.2}, {15, Kind::cordoned, "b1", false, 3.3},
      {16, Kind::granted, "b1", false, 3.4},  {17, Kind::granted, "a1", false, 3.5},
      {18, Kind::granted, "a2", true, 3.7},   {19, Kind::granted, "x", true, 9.0},
  };
  const auto d = phase_delays(events, pools);
  EXPECT_NEAR(*d.grant_to_cordon, 0.2, 1e-9);
  EXPECT_NEAR(*d.cordon_to_uncordon, 2.05, 1e-9);
  EXPECT_NEAR(*d.uncordon_to_withdrawal, 0.2, 1e-9);
  EXPECT_NEAR(*d.withdrawal_to_next_grant, 0.2, 1e-9);
  const auto none = phase_delays({}, pools);
  EXPECT_FALSE(none.grant_to_cordon || none.cordon_to_uncordon || none.uncordon_to_withdrawal || none.withdrawal_to_next_grant);
}

TEST(RolloutFigures, PhaseDelaysSplitTheWaitForWithdrawalAtTheAgentsReport) {
  const std::map<std::string, std::string> pools = {{"a1", "a"}, {"a2", "a"}};
  // a1: granted 1.0, a report before the cordon (ignored: the old generation's
  // kind), cordoned 1.1, uncordoned 3.0, reported 3.4, reported again 3.5
  // (the first counts), withdrawn 4.0. a2: no report before its withdrawal.
  const std::vector<DisruptionEvent> events = {
      {10, Kind::granted, "a1", true, 1.0},   {11, Kind::reported, "a1", true, 1.05},
      {12, Kind::cordoned, "a1", true, 1.1},  {13, Kind::reported, "a1", false, 1.2},
      {14, Kind::cordoned, "a1", false, 3.0}, {15, Kind::reported, "a1", true, 3.4},
      {16, Kind::reported, "a1", true, 3.5},  {17, Kind::granted, "a1", false, 4.0},
      {18, Kind::granted, "a2", true, 4.1},   {19, Kind::cordoned, "a2", true, 4.2},
      {20, Kind::cordoned, "a2", false, 6.2}, {21, Kind::granted, "a2", false, 6.4},
  };
  const auto d = phase_delays(events, pools);
  EXPECT_NEAR(*d.uncordon_to_report, 0.4, 1e-9);
  EXPECT_NEAR(*d.report_to_withdrawal, 0.6, 1e-9);
  EXPECT_NEAR(*d.uncordon_to_withdrawal, 0.6, 1e-9);  // (1.0 + 0.2) / 2
  // Reports are not disruptions.
  const auto w = worst_disruption({{10, Kind::reported, "a1", true}, {11, Kind::reported, "a2", true}}, pools);
  EXPECT_EQ(w.at("a").disrupted, 0);
}

TEST(RolloutFigures, EventsAreTimedByTheEarliestArrivalAtOrAfterTheirRevision) {
  // The Node watch (cordons) runs behind the GPUNode watch (grants, reports).
  std::vector<DisruptionEvent> events = {
      {12, Kind::reported, "a1", true, 2.0}, {10, Kind::granted, "a1", true, 1.0},
      {11, Kind::cordoned, "a1", true, 5.0}, {13, Kind::cordoned, "a1", false, 6.0},
      {14, Kind::granted, "a1", false, 4.0}, {15, Kind::granted, "a2", true, 4.5},
  };
  time_by_commit(events);
  std::vector<std::pair<std::uint64_t, double>> got;
  for (const auto& e : events) got.emplace_back(e.resource_version, e.seen_s);
  EXPECT_EQ(got, (std::vector<std::pair<std::uint64_t, double>>{{10, 1.0}, {11, 2.0}, {12, 2.0}, {13, 4.0}, {14, 4.0}, {15, 4.5}}));

  // By arrival, the uncordon (6.0) came 2 s after the withdrawal (4.0) it
  // caused; by revision, not before it.
  const std::map<std::string, std::string> pools = {{"a1", "a"}, {"a2", "a"}};
  const auto d = phase_delays(events, pools);
  EXPECT_NEAR(*d.grant_to_cordon, 1.0, 1e-9);
  EXPECT_NEAR(*d.uncordon_to_withdrawal, 0.0, 1e-9);
  EXPECT_NEAR(*d.withdrawal_to_next_grant, 0.5, 1e-9);
}

TEST(RolloutFigures, ReportsUpToDateOnlyForTheCurrentGenerationWithBothConditionsTrue) {
  auto gpunode = [](int generation, int observed, const std::string& driver, int driver_gen, const std::string& partition) {
    return R"({"metadata":{"name":"n","generation":)" + std::to_string(generation) + R"(},"status":{"observedGeneration":)" +
           std::to_string(observed) + R"(,"conditions":[{"type":"DriverReady","status":")" + driver +
           R"(","observedGeneration":)" + std::to_string(driver_gen) + R"(},{"type":"PartitionReady","status":")" +
           partition + R"(","observedGeneration":)" + std::to_string(generation) + "}]}}";
  };
  struct Case {
    std::string json;
    bool want;
  } cases[] = {
      {gpunode(3, 3, "True", 3, "True"), true},
      {gpunode(3, 2, "True", 3, "True"), false},   // status of an older generation
      {gpunode(3, 3, "True", 2, "True"), false},   // DriverReady of an older generation
      {gpunode(3, 3, "False", 3, "True"), false},  // installing
      {gpunode(3, 3, "True", 3, "False"), false},  // layout not applied
      {R"({"metadata":{"name":"n","generation":1}})", false},
      {R"({"metadata":{"name":"n","generation":1},"status":{"observedGeneration":1,"conditions":{}}})", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.json);
    EXPECT_EQ(reports_up_to_date(kube::parse_json(c.json)), c.want);
  }
}

std::string pool_json(int generation, int observed, const std::string& target, int total, int updated, int pending,
                      const std::string& reason, int condition_generation) {
  return R"({"metadata":{"name":"p","generation":)" + std::to_string(generation) + R"(},"status":{"observedGeneration":)" +
         std::to_string(observed) + R"(,"nodes":{"total":)" + std::to_string(total) + R"(},"rollout":{"targetVersion":")" +
         target + R"(","updated":)" + std::to_string(updated) + R"(,"pending":)" + std::to_string(pending) +
         R"(,"failed":0},"conditions":[{"type":"Ready","status":"True","reason":"UpToDate"},{"type":"Progressing","status":"False","reason":")" +
         reason + R"(","observedGeneration":)" + std::to_string(condition_generation) + "}]}}";
}

TEST(RolloutFigures, CompleteOnlyWhenTheStatusOfThisGenerationSaysSo) {
  struct Row {
    const char* what;
    std::string json;
    bool want;
  };
  const std::vector<Row> rows = {
      {"complete", pool_json(3, 3, "580.82.07", 25, 25, 0, "Complete", 3), true},
      {"status of the previous generation", pool_json(3, 2, "580.82.07", 25, 25, 0, "Complete", 2), false},
      {"condition of the previous generation", pool_json(3, 3, "580.82.07", 25, 25, 0, "Complete", 2), false},
      {"another version", pool_json(3, 3, "570.133.20", 25, 25, 0, "Complete", 3), false},
      {"not all updated", pool_json(3, 3, "580.82.07", 25, 24, 1, "RollingOut", 3), false},
      {"no members", pool_json(3, 3, "580.82.07", 0, 0, 0, "NoMembers", 3), false},
      {"still rolling", pool_json(3, 3, "580.82.07", 25, 25, 0, "RollingOut", 3), false},
      {"no status", R"({"metadata":{"name":"p","generation":1}})", false},
  };
  for (const auto& r : rows) {
    const auto doc = kube::parse_json(r.json);
    EXPECT_EQ(rollout_complete(doc, "580.82.07"), r.want) << r.what;
  }
  // A pool without a driver reports an empty target.
  const auto none = kube::parse_json(pool_json(1, 1, "", 5, 5, 0, "Complete", 1));
  EXPECT_TRUE(rollout_complete(none, ""));
}

}  // namespace
}  // namespace gpupool::bench
