// What must change on a node for its GPUs to match the GPUNode spec: the
// node agent's one decision, pure. The agent re-computes it from the truth
// (the backend's inventory) on every pass, so a pass interrupted anywhere is
// finished by the next one, and a node that already matches yields an empty
// plan and is never disrupted.
//
// Rules:
// - MIG: each spec.partitioning.mig entry names a GPU by index. enabled=false
//   destroys its instances and turns MIG mode off. enabled=true turns MIG mode
//   on and makes the instances match: when every instance has a placement, the
//   exact layout (instances already at the right place are kept); otherwise
//   the wanted counts through gpu::plan_change (the smallest change, keeping
//   the instances that can stay; placements given are then not binding).
//   GPUs not named in the spec are left as they are.
// - AMD: spec.partitioning.amd applies to every AMD GPU with partition modes.
// - Driver: spec.driver.version differing from the loaded driver is an install
//   (kind preinstalled: a problem, since nothing may be installed).
// - A GPU the spec cannot be applied to (no such index, a model without MIG or
//   without the profile, a layout that does not fit) is a problem naming the
//   field; when there is any problem the plan holds no partition action at
//   all, so nothing is changed on the node (the agent reports it as a Failed
//   operation with reason Unsatisfiable).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "gpupool/api/gpunode.h"
#include "gpupool/backend/backend.h"
#include "gpupool/gpu/catalog.h"
#include "gpupool/gpu/mig_planner.h"

namespace gpupool::node {

struct MigAction {
  int gpu_index = 0;
  std::optional<bool> set_mig_mode;          // turn MIG on (true) or off (false); unset: leave
  std::vector<backend::MigInstance> destroy; // current instances to destroy (before creating)
  gpu::Layout create;                        // instances to create at their placements
  bool operator==(const MigAction&) const = default;
};

struct AmdAction {
  int gpu_index = 0;
  std::string compute;  // wanted mode, "" = leave
  std::string memory;
  bool operator==(const AmdAction&) const = default;
};

struct PlanProblem {
  std::string field;    // "spec.partitioning.mig[1]"
  std::string message;  // "GPU 5 does not exist (the node has 4 GPUs)"
  bool operator==(const PlanProblem&) const = default;
};

struct NodePlan {
  std::vector<MigAction> mig;             // only GPUs that need a change, by index
  std::vector<AmdAction> amd;
  std::vector<PlanProblem> problems;      // partition problems: then mig and amd are empty
  std::optional<std::string> driver_install;  // version to install
  std::optional<PlanProblem> driver_problem;  // e.g. preinstalled driver differs

  bool partition_changes() const { return !mig.empty() || !amd.empty(); }
  // Whether carrying the plan out needs the node drained.
  bool disruptive() const { return partition_changes() || driver_install.has_value(); }
  // "GPU 0: enable MIG, destroy 1g.10gb@3, create 3g.40gb@0; driver 550.54.15 -> 570.133.20"
  std::string describe(const std::string& current_driver) const;
};

NodePlan plan_node(const api::GPUNodeSpec& spec, const backend::Inventory& inventory, const gpu::Catalog& catalog);

}  // namespace gpupool::node
