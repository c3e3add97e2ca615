#include "gpupool/api/conditions.h"

#include <gtest/gtest.h>

namespace gpupool::api {
namespace {

Time at(int seconds) { return Time(Time::TimePoint(std::chrono::seconds(seconds))); }

TEST(Conditions, TransitionTimeMovesOnlyWithTheStatus) {
  std::vector<Condition> cs;
  EXPECT_TRUE(set_condition(cs, {"Ready", ConditionStatus::false_, 1, at(10), "Updating", "a"}));
  EXPECT_TRUE(set_condition(cs, {"Ready", ConditionStatus::false_, 1, at(20), "Updating", "b"}));
  EXPECT_EQ(cs.at(0).last_transition_time, at(10));
  EXPECT_EQ(cs.at(0).message, "b");
  EXPECT_FALSE(set_condition(cs, {"Ready", ConditionStatus::false_, 1, at(30), "Updating", "b"}));
  EXPECT_TRUE(set_condition(cs, {"Ready", ConditionStatus::true_, 1, at(40), "UpToDate", ""}));
  EXPECT_EQ(cs.at(0).last_transition_time, at(40));
  EXPECT_EQ(cs.size(), 1u);
  EXPECT_EQ(find_condition(cs, "Ready")->reason, "UpToDate");
  EXPECT_EQ(find_condition(cs, "Healthy"), nullptr);
}

TEST(Operations, StartTimeKeptWhilePhaseAndGenerationHold) {
  std::vector<OperationStatus> ops;
  OperationStatus drain{OperationType::drain, OperationPhase::in_progress, 3, "Draining", "x", at(100)};
  EXPECT_TRUE(set_operation(ops, drain));
  drain.reason = "PodDisruptionBudget";
  drain.last_transition_time = at(130);
  EXPECT_TRUE(set_operation(ops, drain));
  EXPECT_EQ(find_operation(ops, OperationType::drain)->last_transition_time, at(100)) << "the drain's start is kept";
  drain.observed_generation = 4;  // a new spec: a new drain
  drain.last_transition_time = at(200);
  EXPECT_TRUE(set_operation(ops, drain));
  EXPECT_EQ(find_operation(ops, OperationType::drain)->last_transition_time, at(200));
  EXPECT_TRUE(set_operation(ops, {OperationType::driver, OperationPhase::pending, 4, "", "", at(1)}));
  EXPECT_EQ(ops.front().type, OperationType::driver) << "kept sorted by type";
}

}  // namespace
}  // namespace gpupool::api
