// build_pool_status: counts, capacity, and what each condition says.
#include <gtest/gtest.h>

#include "gpupool/api/conditions.h"
#include "gpupool/pool/pool_status.h"

namespace gpupool::pool {
namespace {

const api::Condition& cond(const api::GPUPoolStatus& s, const char* type) {
  const auto* c = api::find_condition(s.conditions, type);
  EXPECT_NE(c, nullptr) << type;
  static const api::Condition none;
  return c ? *c : none;
}

PoolStatusInput base() {
  PoolStatusInput in;
  in.pool = "train";
  in.generation = 3;
  in.members = 4;
  in.ready_members = 4;
  in.rollout.updated = 4;
  in.target_version = "570.133.20";
  in.capacity = {{"nvidia.com/mig-3g.40gb", 8}, {"nvidia.com/gpu", 0}};
  return in;
}

TEST(PoolStatus, CompleteIsReady) {
  const auto s = build_pool_status(base(), {}, api::Time());
  EXPECT_EQ(s.observed_generation, 3);
  EXPECT_EQ(s.nodes.total, 4);
  EXPECT_EQ(s.capacity.size(), 1u) << "zero counts are left out";
  EXPECT_EQ(s.capacity.at("nvidia.com/mig-3g.40gb").quantity.text(), "8");
  EXPECT_EQ(cond(s, "Ready").status, api::ConditionStatus::true_);
  EXPECT_EQ(cond(s, "Ready").observed_generation, 3);
  EXPECT_EQ(cond(s, "Progressing").reason, "Complete");
  EXPECT_EQ(cond(s, "Degraded").status, api::ConditionStatus::false_);
  EXPECT_EQ(cond(s, "Conflict").status, api::ConditionStatus::false_);
  ASSERT_TRUE(s.rollout);
  EXPECT_EQ(s.rollout->target_version, "570.133.20");
}

TEST(PoolStatus, EachSituationHasItsReason) {
  struct Row {
    std::string name;
    std::function<void(PoolStatusInput&)> set;
    std::string progressing_reason;
    api::ConditionStatus progressing;
  };
  const std::vector<Row> rows = {
      {"rolling out", [](auto& in) { in.rollout.in_progress = {"a"}; in.rollout.updated = 3; }, "RollingOut", api::ConditionStatus::true_},
      {"finishing: up to date, the agent's uncordon not seen yet", [](auto& in) { in.rollout.finishing = {"a"}; },
       "RollingOut", api::ConditionStatus::true_},
      {"waiting", [](auto& in) { in.rollout.pending = {"a"}; in.rollout.waiting = "1 of 4 nodes unavailable"; }, "WaitingForTurn",
       api::ConditionStatus::true_},
      {"paused", [](auto& in) { in.paused = true; in.rollout.pending = {"a"}; }, "Paused", api::ConditionStatus::false_},
      {"window", [](auto& in) { in.window_open = false; in.rollout.pending = {"a"}; in.rollout.waiting = "next window Sat"; },
       "OutsideMaintenanceWindow", api::ConditionStatus::false_},
      {"budget", [](auto& in) { in.rollout.failed = {"a", "b"}; in.rollout.budget_exhausted = true; in.rollout.pending = {"c"}; },
       "FailureBudgetExceeded", api::ConditionStatus::false_},
      {"policy", [](auto& in) { in.policy_problem = "GPUPolicy strict not found"; }, "PolicyNotFound", api::ConditionStatus::false_},
      {"no members", [](auto& in) { in.members = 0; in.ready_members = 0; in.rollout.updated = 0; }, "NoMembers",
       api::ConditionStatus::false_},
  };
  for (const auto& row : rows) {
    auto in = base();
    row.set(in);
    const auto s = build_pool_status(in, {}, api::Time());
    EXPECT_EQ(cond(s, "Progressing").reason, row.progressing_reason) << row.name;
    EXPECT_EQ(cond(s, "Progressing").status, row.progressing) << row.name;
    EXPECT_EQ(cond(s, "Ready").status, api::ConditionStatus::false_) << row.name;
    EXPECT_FALSE(s.rollout->message.empty()) << row.name;
  }
}

TEST(PoolStatus, DegradedNamesTheFailedNodesAndHowToClearThem) {
  auto in = base();
  in.rollout.failed = {"gpu-3"};
  in.rollout.budget_exhausted = true;
  in.failures = {{"gpu-3", "Driver: InstallFailed: exit code 1"}};
  const auto s = build_pool_status(in, {}, api::Time());
  const auto& d = cond(s, "Degraded");
  EXPECT_EQ(d.status, api::ConditionStatus::true_);
  EXPECT_EQ(d.reason, "FailureBudgetExceeded");
  EXPECT_NE(d.message.find("gpu-3 (Driver: InstallFailed: exit code 1)"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("kubectl annotate gpunode NODE gpupool.io/retry=true"), std::string::npos);
  EXPECT_EQ(s.nodes.failed, 1);
}

TEST(PoolStatus, ConflictNamesTheNodeAndTheOtherPool) {
  auto in = base();
  in.conflicts = {{"gpu-9", {"infer", "train"}}};
  const auto s = build_pool_status(in, {}, api::Time());
  const auto& c = cond(s, "Conflict");
  EXPECT_EQ(c.status, api::ConditionStatus::true_);
  EXPECT_NE(c.message.find("node gpu-9 is also selected by infer"), std::string::npos) << c.message;
  EXPECT_EQ(s.nodes.conflicted, 1);
}

TEST(PoolStatus, TransitionTimesHoldWhileTheStatusHolds) {
  api::Time t1(api::Time::TimePoint(std::chrono::seconds(1000)));
  api::Time t2(api::Time::TimePoint(std::chrono::seconds(2000)));
  const auto first = build_pool_status(base(), {}, t1);
  const auto second = build_pool_status(base(), first, t2);
  EXPECT_EQ(cond(second, "Ready").last_transition_time, t1);
}

// The pool reconciler writes four condition types; the others have their own
// writers and are kept as the server has them.
TEST(PoolStatus, OwnConditionsAreTheFourItBuilds) {
  PoolStatusInput in;
  in.pool = "p";
  in.generation = 1;
  const auto s = build_pool_status(in, api::GPUPoolStatus{}, api::Time{});
  ASSERT_EQ(s.conditions.size(), 4u);
  for (const auto& c : s.conditions) EXPECT_TRUE(own_condition(c.type)) << c.type;
  for (const char* theirs : {"UnhealthyNodesHeldBack", "MonitoringRolledOut", ""}) EXPECT_FALSE(own_condition(theirs)) << theirs;
}

}  // namespace
}  // namespace gpupool::pool
