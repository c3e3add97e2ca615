// One simulated node agent of the scale benchmark's rollout (rollout_agents.h
// runs thousands of them in one process). Pure: no clock (the caller passes
// the time), no API; it decides the next step of a pass from what the pass
// read (its GPUNode, its Node) and what it remembers, and builds the status
// to report. The fleet carries the steps out.
//
// What it keeps of the real agent's contract (include/gpupool/node/node_agent.h),
// as far as the controller reads it (lib/pool_controller/object_facts.cpp
// gpunode_state, include/gpupool/pool/rollout.h, desired_spec.h):
// - Fields: it writes GPUNode status only (and creates a missing GPUNode
//   with spec.nodeName alone), and cordons and uncordons its Node with the
//   annotation gpupool.io/pre-drain-unschedulable recording whether the
//   Node was cordoned before (node_patches.h); the Lease is the fleet's.
// - Status: observedGeneration = the spec generation read; GPUs (index,
//   UUID, model, catalogID, vendor, memory, partition, health Healthy);
//   driverVersion; conditions Ready, DriverReady (the driver spec.driver
//   asks is loaded), PartitionReady (the MIG layout spec.partitioning.mig
//   asks is applied), Healthy (NoHealthRules: the bench sets no health
//   rules), each with that generation; operations Driver, Partition, Drain.
//   The controller counts a node updated when DriverReady and
//   PartitionReady are True for the current generation and no operation of
//   it failed, and unavailable while it is cordoned or holds permission
//   without being updated.
// - Steps: a change (driver version, or MIG layout once one was applied)
//   waits for spec.disruptionAllowed (operations Pending,
//   WaitingForDisruption); then cordon (the fleet first reads the GPUNode
//   afresh, as the real agent does: disruption_permission.h); drain
//   (simulated: no pod is evicted; Drained at once); install for the fixed
//   install time (Driver InProgress, Installing, reported before the wait);
//   then the new version loaded (and the layout applied), uncordon (when the
//   agent cordoned an uncordoned Node), and operations Succeeded. The Drain
//   operation stays InProgress from the cordon until the uncordon, as the
//   real agent's: the controller counts the node unavailable until then.
//   Whether it still holds its cordon it remembers (the Node read may be
//   older than its own cordon; the fleet then reads the Node afresh).
// - Start: the simulated fleet is provisioned as its pools ask: at its first
//   pass on a spec the controller wrote (spec.pool set; the GPUNode an agent
//   creates has only spec.nodeName, and the fleet may start before the
//   controller) an agent takes the driver that spec asks (none asked:
//   kDefaultDriver of its vendor) as the one loaded, and the first MIG
//   layout its spec asks (the controller sends one only after the GPUs are
//   reported) as the one applied. Until then it reports that default
//   driver. Only later changes disrupt.
// Not simulated: evictions and GPU processes, failures, health judgments,
// labels and advertised resources (a device plugin's job on these nodes).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/api/gpunode.h"

namespace gpupool::bench {

inline constexpr const char* kPreDrainAnnotation = "gpupool.io/pre-drain-unschedulable";  // node_patches.h's

// The GPUs of one simulated node.
struct SimHardware {
  std::string catalog_id;  // "a100-sxm4-80gb"
  std::string model;       // as reported, "NVIDIA A100-SXM4-80GB"
  api::GPUVendor vendor = api::GPUVendor::nvidia;
  std::int64_t memory_mib = 0;
  bool mig_capable = false;
  int gpus = 1;
};

// The driver a simulated node has when its spec asks for none.
std::string default_driver(api::GPUVendor vendor);

// What one pass read.
struct SimObserved {
  bool gpunode = false;                 // the GPUNode exists
  std::int64_t generation = 0;          // its metadata.generation
  bool pooled = false;                  // spec.pool is set: the controller has written the spec
  std::optional<std::string> driver;    // spec.driver.version
  std::vector<api::GPUMIGLayout> mig;   // spec.partitioning.mig
  bool disruption_allowed = false;      // spec.disruptionAllowed
  bool node = false;                    // the Node exists
  bool unschedulable = false;           // spec.unschedulable
  std::optional<std::string> pre_drain; // kPreDrainAnnotation's value
};

enum class SimStep {
  create_gpunode,  // POST the GPUNode (spec.nodeName only)
  cordon,          // patch the Node: unschedulable, the pre-drain annotation
  start_install,   // then report (Installing) and come back at install_done_at()
  wait_install,    // come back at install_done_at()
  finish_install,  // the new driver is loaded
  uncordon,        // patch the Node: the annotation removed (and unschedulable false when it was "false");
                   // when the Node read lacks the annotation, read it afresh first (done when it still does)
  report,          // write the status when it differs from the last written; the pass ends
};

class SimAgent {
 public:
  using TimePoint = std::chrono::system_clock::time_point;

  SimAgent(std::string node, SimHardware hardware, std::chrono::milliseconds install_time);

  // Takes the provisioned state from the spec the first time it asks for it
  // (see the file comment). Call at the start of every pass.
  void observe(const SimObserved& o);
  // The next step of this pass.
  SimStep next(const SimObserved& o, TimePoint now) const;
  // Records that `step` was carried out (operations, the loaded driver, the install).
  void done(SimStep step, const SimObserved& o, TimePoint now);
  // The status for `o`'s generation (conditions keep their transition times).
  api::GPUNodeStatus status(const SimObserved& o, TimePoint now);

  const std::string& node() const { return node_; }
  std::optional<TimePoint> install_done_at() const;
  const std::optional<std::string>& driver() const { return driver_; }
  // Whether what `o` asks differs from what the GPUs have.
  bool needs_change(const SimObserved& o) const;
  // Whether it cordoned its Node and has not uncordoned it yet.
  bool holds_cordon() const { return holds_cordon_; }

 private:
  struct Install {
    std::string driver;
    std::optional<std::vector<api::GPUMIGLayout>> mig;
    TimePoint done_at;
  };
  void set_op(api::OperationType type, api::OperationPhase phase, const std::string& reason, const std::string& message,
              std::int64_t generation, TimePoint now);
  bool driver_differs(const SimObserved& o) const;
  bool mig_differs(const SimObserved& o) const;

  std::string node_;
  SimHardware hardware_;
  std::chrono::milliseconds install_time_;
  std::optional<std::string> driver_;                      // loaded; nullopt until the first pass
  std::optional<std::vector<api::GPUMIGLayout>> mig_;      // applied; nullopt until a spec asks for one
  std::optional<Install> install_;
  std::vector<api::OperationStatus> operations_;
  std::vector<api::Condition> conditions_;
  bool holds_cordon_ = false;  // cordoned by this agent, not uncordoned yet
};

}  // namespace gpupool::bench
