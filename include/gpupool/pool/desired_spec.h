// What a member node should run: a pool (and its policy) turned into a
// GPUNode spec for the GPUs that node reports. Pure.
//
// - driver: the pool's version and installer; drain and cordonOnFailure from
//   the effective upgrade strategy (the pool's, else its policy's, else the
//   defaults).
// - partitioning, NVIDIA: the MIG strategy (single | mixed) and, per GPU the
//   node reports, MIG on or off and the instances by profile (no placements:
//   the agent's planner keeps the instances that stay). A named layout
//   (built-in or a config of the operator's mig-parted file) is resolved for
//   each GPU's model; explicit `devices` name GPUs by index (an entry without
//   GPUs covers every GPU no other entry names). Each GPU's instances must fit
//   its model (the MIG planner says so); when one does not, or the node
//   reports no GPUs yet, nothing is desired for partitioning and `problem`
//   says why, so the node counts as failed and is not sent a layout.
// - partitioning, AMD: the compute and memory modes for every AMD GPU.
// - sharing and monitoring: copied; health: the policy's health rules.
// disruptionAllowed and nodeName are the caller's.
#pragma once

#include <optional>
#include <string>

#include "gpupool/api/gpunode.h"
#include "gpupool/api/gpupolicy.h"
#include "gpupool/api/gpupool.h"
#include "gpupool/gpu/catalog.h"
#include "gpupool/gpu/mig_parted.h"

namespace gpupool::pool {

// The pool's upgradeStrategy, else its policy's upgrade rules, else the defaults.
api::UpgradeStrategy effective_upgrade_strategy(const api::GPUPool& pool, const api::GPUPolicy* policy);

struct DesiredSpecInput {
  const api::GPUPool* pool = nullptr;          // required
  const api::GPUPolicy* policy = nullptr;      // the pool's policy, when it has one that exists
  const api::GPUNodeStatus* reported = nullptr;  // the agent's report; nullptr or no GPUs: not known yet
  const gpu::Catalog* catalog = nullptr;       // required
  const gpu::MigPartedConfig* mig_parted = nullptr;  // the operator's mig-parted configs, if any
};

struct DesiredSpec {
  api::GPUNodeSpec spec;          // pool, driver, partitioning, sharing, monitoring, health, drain, cordonOnFailure
  std::optional<std::string> problem;  // the layout cannot be applied to this node: why ("GPU 2 (A100-SXM4-40GB): ...")
  bool waiting_for_report = false;     // partitioning wanted but the node has reported no GPUs yet
};

DesiredSpec desired_gpunode_spec(const DesiredSpecInput& in);

// A GPUNode spec for a node in no pool: the pool cleared and nothing desired
// (the agent leaves the GPUs as they are), keeping its nodeName.
api::GPUNodeSpec unowned_gpunode_spec(const std::string& node_name);

}  // namespace gpupool::pool
