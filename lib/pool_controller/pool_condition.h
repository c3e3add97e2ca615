// Private to lib/pool_controller: one condition of a GPUPool's status written
// by a reconciler that is not the pool reconciler (the health and monitoring
// reconcilers), leaving every other condition and status field as it is.
// The pool reconciler keeps conditions it does not own when it writes the
// status (pool_reconciler.cpp), so each writer owns its condition types.
#pragma once

#include <rapidjson/document.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "gpupool/kube/client.h"

namespace gpupool::pool_controller {

struct PoolCondition {
  std::string type;
  std::string status;  // "True", "False"
  std::string reason;
  std::string message;
};

// The condition of that type in obj's status.conditions; nullptr when none.
const rapidjson::Value* find_condition(const rapidjson::Value& obj, const std::string& type);

// Whether `have` says `want` (status, reason, message) for `generation`.
bool condition_holds(const rapidjson::Value* have, const PoolCondition& want, std::int64_t generation);

// Writes `want` into pool `pool`'s status (observedGeneration `generation`;
// lastTransitionTime `now`, or kept while the status holds) unless the pool
// already says it. Read-modify-write through the status subresource, retried
// on conflict. Throws the API's errors.
void write_pool_condition(kube::Client& client, const std::string& pool, const PoolCondition& want,
                          std::int64_t generation, std::chrono::system_clock::time_point now);

}  // namespace gpupool::pool_controller
