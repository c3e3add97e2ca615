// A GPUPool's status from what the reconciler found and decided. Pure.
//
// Conditions (observedGeneration = the pool's generation):
//   Ready        True when every member matches the spec (reason UpToDate);
//                else NoMembers, PolicyNotFound, Paused... the reason the
//                rollout gives (RollingOut, NodesFailed, ...).
//   Progressing  True while nodes are being changed or wait for their turn
//                (RollingOut, WaitingForTurn); False when Complete, Paused,
//                OutsideMaintenanceWindow, FailureBudgetExceeded,
//                PolicyNotFound.
//   Degraded     True (FailureBudgetExceeded) with the failed nodes and
//                their reasons when more nodes failed than the budget
//                allows; False otherwise.
//   Conflict     True (EqualPriority) naming each node and the other pools
//                when a node is claimed by pools of equal priority.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/api/gpupool.h"
#include "gpupool/pool/membership.h"
#include "gpupool/pool/rollout.h"

namespace gpupool::pool {

struct PoolStatusInput {
  std::string pool;
  std::int64_t generation = 0;
  std::int32_t members = 0;
  std::int32_t ready_members = 0;                  // up to date and their Node Ready
  RolloutDecision rollout;
  std::map<std::string, std::string> failures;     // node -> why (the agent's or the planner's words)
  std::vector<Conflict> conflicts;                 // this pool's
  std::map<std::string, std::int64_t> capacity;    // resource -> count, over the members
  std::string target_version;                      // spec.driver.version
  bool paused = false;
  bool window_open = true;
  std::optional<std::string> policy_problem;       // "GPUPolicy default not found"
  std::vector<std::string> spec_problems;          // maintenance windows that cannot be read, ...
};

// Whether the pool reconciler writes conditions of this type (the four
// above); the others are the health and monitoring reconcilers', kept as the
// server has them when the pool reconciler writes the status.
bool own_condition(const std::string& type);

// Builds the status; `previous` keeps each condition's lastTransitionTime
// while its status holds.
api::GPUPoolStatus build_pool_status(const PoolStatusInput& in, const api::GPUPoolStatus& previous, const api::Time& now);

}  // namespace gpupool::pool
