// Short descriptions shared by the status tables and the explanations.
// Private to lib/explain.
#pragma once

#include <string>

#include "json_read.h"

namespace gpupool::explain::detail {

// A GPUNode's state in one word from its agent's conditions, and why.
struct NodeState {
  std::string state;   // Ready, Updating, Waiting, Starting, Failed, Error, Pending, NoReport, Unknown (+",Unhealthy")
  std::string reason;  // empty when Ready and healthy
};
NodeState node_state(const Value& gpunode);

// "2x a100-sxm4-80gb" (catalog id, else the reported model), "-" without a report.
std::string gpu_summary(const Value& gpunode);
// The wanted layout: MIG instances per GPU ("mig 3g.40gb=2 (x4)",
// "mig 0:3g.40gb=2 1:1g.10gb=7"), AMD modes ("CPX/NPS4"), sharing
// ("timeSlicing/4"); "-" for whole GPUs, exclusive.
std::string layout_summary(const Value& gpunode);
// Loaded driver, "->wanted" while they differ.
std::string driver_summary(const Value& gpunode);

// Why a Node is cordoned, in words, from the annotations the controller and
// the agent leave ("by the controller for GPU health since ...", "by its agent
// while draining", "by someone else"); `failed`: the node's change failed
// (its agent keeps it cordoned, spec.cordonOnFailure).
std::string cordon_origin(const Value& node, bool failed = false);

}  // namespace gpupool::explain::detail
