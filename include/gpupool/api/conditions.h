// Conditions and operations as Kubernetes API conventions keep them: one
// entry per type, lastTransitionTime moved only when the status (or phase)
// changes, so "since when" stays true across repeated writes.
#pragma once

#include <string_view>
#include <vector>

#include "gpupool/api/gpunode.h"
#include "gpupool/api/meta.h"

namespace gpupool::api {

const Condition* find_condition(const std::vector<Condition>& conditions, std::string_view type);
// Adds `c` or updates the entry of its type; keeps the old lastTransitionTime
// when the status is unchanged. Returns whether anything changed.
bool set_condition(std::vector<Condition>& conditions, const Condition& c);

const OperationStatus* find_operation(const std::vector<OperationStatus>& ops, OperationType type);
// Adds `op` or updates the entry of its type; keeps the old lastTransitionTime
// when the phase and generation are unchanged. Returns whether anything changed.
bool set_operation(std::vector<OperationStatus>& ops, const OperationStatus& op);

}  // namespace gpupool::api
