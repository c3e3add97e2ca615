#include "gpupool/pool/pool_status.h"

#include "gpupool/api/conditions.h"
#include "name_list.h"

namespace gpupool::pool {

bool own_condition(const std::string& type) {
  return type == "Ready" || type == "Progressing" || type == "Degraded" || type == "Conflict";
}

api::GPUPoolStatus build_pool_status(const PoolStatusInput& in, const api::GPUPoolStatus& previous, const api::Time& now) {
  api::GPUPoolStatus s;
  s.observed_generation = in.generation;
  s.conditions = previous.conditions;
  s.granted = previous.granted;  // written by the quota controller
  const auto& d = in.rollout;
  s.nodes.total = in.members;
  s.nodes.ready = in.ready_members;
  s.nodes.updating = static_cast<std::int32_t>(d.in_progress.size());
  s.nodes.failed = static_cast<std::int32_t>(d.failed.size());
  s.nodes.conflicted = static_cast<std::int32_t>(in.conflicts.size());
  for (const auto& [resource, n] : in.capacity) {
    if (n > 0) s.capacity[resource] = api::QuantityValue{api::Quantity::from_int(n), false};
  }

  api::RolloutStatus r;
  r.target_version = in.target_version;
  r.updated = d.updated;
  r.pending = static_cast<std::int32_t>(d.pending.size() + d.no_agent.size());
  r.failed = static_cast<std::int32_t>(d.failed.size());
  r.paused = in.paused;

  auto cond = [&](const char* type, api::ConditionStatus status, const std::string& reason, const std::string& message) {
    api::Condition c;
    c.type = type;
    c.status = status;
    c.observed_generation = in.generation;
    c.last_transition_time = now;
    c.reason = reason;
    c.message = message.substr(0, 32000);
    api::set_condition(s.conditions, c);
  };
  using api::ConditionStatus;

  // Conflict
  if (in.conflicts.empty()) {
    cond("Conflict", ConditionStatus::false_, "NoConflict", "");
  } else {
    std::vector<std::string> parts;
    for (const auto& c : in.conflicts) {
      std::vector<std::string> others;
      for (const auto& p : c.pools) {
        if (p != in.pool) others.push_back(p);
      }
      parts.push_back("node " + c.node + " is also selected by " + name_list(others));
    }
    cond("Conflict", ConditionStatus::true_, "EqualPriority",
         name_list(parts, 20) + " at the same priority; no pool acts on such a node until one pool's priority or "
                           "nodeSelector changes");
  }

  // Degraded
  std::vector<std::string> failed_text;
  for (const auto& n : d.failed) {
    auto it = in.failures.find(n);
    failed_text.push_back(n + (it == in.failures.end() ? "" : " (" + it->second + ")"));
  }
  if (d.budget_exhausted) {
    cond("Degraded", ConditionStatus::true_, "FailureBudgetExceeded",
         std::to_string(d.failed.size()) + " nodes failed: " + name_list(failed_text) +
             ". No new node starts until the pool's spec changes or a failure is cleared with "
             "`kubectl annotate gpunode NODE gpupool.io/retry=true`");
  } else {
    cond("Degraded", ConditionStatus::false_, "WithinBudget",
         d.failed.empty() ? "" : std::to_string(d.failed.size()) + " node(s) failed, within the failure budget: " + name_list(failed_text));
  }

  // Progressing, Ready, rollout message
  std::string reason, message;
  ConditionStatus progressing = ConditionStatus::false_;
  const bool work_left = !d.pending.empty() || !d.in_progress.empty() || !d.no_agent.empty();
  if (in.policy_problem) {
    reason = "PolicyNotFound";
    message = *in.policy_problem + "; no node is changed until it exists or spec.policyRef is removed";
  } else if (!in.spec_problems.empty()) {
    reason = "InvalidSpec";
    message = name_list(in.spec_problems);
  } else if (in.members == 0) {
    reason = "NoMembers";
    message = in.conflicts.empty() ? "no node matches spec.nodeSelector" : "every matching node is in conflict";
  } else if (in.paused && work_left) {
    reason = "Paused";
    message = "spec.paused: no new node starts; " + std::to_string(d.in_progress.size()) + " in progress finish";
  } else if (d.budget_exhausted) {
    reason = "FailureBudgetExceeded";
    message = d.waiting.empty() ? std::to_string(d.failed.size()) + " nodes failed: " + name_list(failed_text) : d.waiting;
  } else if (!d.in_progress.empty()) {
    progressing = ConditionStatus::true_;
    reason = "RollingOut";
    message = std::to_string(d.in_progress.size()) + " in progress (" + name_list(d.in_progress) + "), " +
              std::to_string(r.pending) + " waiting, " + std::to_string(d.updated) + " of " +
              std::to_string(in.members) + " up to date" + (d.waiting.empty() ? "" : "; " + d.waiting);
  } else if (!d.finishing.empty()) {
    progressing = ConditionStatus::true_;
    reason = "RollingOut";
    message = std::to_string(d.finishing.size()) + " up to date, waiting for their agents to uncordon them (" +
              name_list(d.finishing) + "), " + std::to_string(r.pending) + " waiting, " + std::to_string(d.updated) +
              " of " + std::to_string(in.members) + " up to date" + (d.waiting.empty() ? "" : "; " + d.waiting);
  } else if (!in.window_open && !d.pending.empty()) {
    reason = "OutsideMaintenanceWindow";
    message = d.waiting.empty() ? "outside the maintenance windows" : d.waiting;
  } else if (!d.pending.empty() || !d.no_agent.empty()) {
    progressing = ConditionStatus::true_;
    reason = "WaitingForTurn";
    message = d.waiting.empty() ? std::to_string(r.pending) + " node(s) waiting" : d.waiting;
    if (!d.no_agent.empty()) message += "; no agent heartbeat from " + name_list(d.no_agent);
  } else if (!d.failed.empty()) {
    reason = "NodesFailed";
    message = name_list(failed_text);
  } else {
    reason = "Complete";
    message = "all " + std::to_string(in.members) + " member nodes match the spec";
  }
  r.message = message;
  s.rollout = r;
  cond("Progressing", progressing, reason, message);
  const bool ready = reason == "Complete" && in.ready_members == in.members;
  cond("Ready", ready ? ConditionStatus::true_ : ConditionStatus::false_, ready ? "UpToDate" : reason, message);
  return s;
}

}  // namespace gpupool::pool
