// Whether the permission an agent is about to act on still holds. The agent
// plans from its informer's copy of its GPUNode, which can predate the pool
// controller's withdrawal (a new spec is written with
// spec.disruptionAllowed false, and the controller then counts the node as
// available and may grant another). So before its first cordon for a change
// the agent reads the GPUNode afresh and cordons only if that read still
// grants it the generation it planned from. Pure.
#pragma once

#include <cstdint>

#include <rapidjson/document.h>

namespace gpupool::node {

enum class PermissionCheck {
  holds,       // spec.disruptionAllowed true at the planned generation: cordon
  withdrawn,   // spec.disruptionAllowed not true (or the object unreadable): do not cordon
  newer_spec,  // still allowed, but the spec changed since: plan again from the newer spec first
};

// `fresh`: the GPUNode as just read from the API server; `planned_generation`:
// metadata.generation of the copy the pass planned from.
PermissionCheck check_permission(const rapidjson::Value& fresh, std::int64_t planned_generation);

}  // namespace gpupool::node
