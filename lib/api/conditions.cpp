#include "gpupool/api/conditions.h"

#include <algorithm>

namespace gpupool::api {

const Condition* find_condition(const std::vector<Condition>& conditions, std::string_view type) {
  for (const auto& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool set_condition(std::vector<Condition>& conditions, const Condition& c) {
  for (auto& old : conditions) {
    if (old.type != c.type) continue;
    Condition next = c;
    if (old.status == c.status) next.last_transition_time = old.last_transition_time;
    if (next == old) return false;
    old = next;
    return true;
  }
  conditions.push_back(c);
  return true;
}

const OperationStatus* find_operation(const std::vector<OperationStatus>& ops, OperationType type) {
  for (const auto& o : ops) {
    if (o.type == type) return &o;
  }
  return nullptr;
}

bool set_operation(std::vector<OperationStatus>& ops, const OperationStatus& op) {
  for (auto& old : ops) {
    if (old.type != op.type) continue;
    OperationStatus next = op;
    if (old.phase == op.phase && old.observed_generation == op.observed_generation && old.last_transition_time) {
      next.last_transition_time = old.last_transition_time;
    }
    if (next == old) return false;
    old = next;
    return true;
  }
  ops.push_back(op);
  std::sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.type < b.type; });
  return true;
}

}  // namespace gpupool::api
