// A GPUNode as the controller keeps it in its informer's store: in the DOM
// its metadata and the spec's nodeName, pool and disruptionAllowed (what
// predicates, indexes and writes read there); the rest of the spec held once
// for every GPUNode with the same (a pool's members with the same GPUs get
// the same spec), and the status, the agent's report, as a compact typed
// record (GPUNodeReport), both attached to the object (kube::Object::part).
//
// Why: at 5,000 nodes the GPUNodes were the largest part of the
// controller's memory after the pods, about 8.3 KB of heap each as a DOM
// (16 bytes a value, 32 a member: every GPU, MIG instance and MIG layout
// entry an object). Split, the benchmark's GPUNodes take 2.3 KB each: the
// GPU list and the spec are the same on every node of a pool's model and
// layout, and held once; what is left per node is its metadata, its
// conditions and operations (their words shared too).
//
// The record keeps what the controller's reconcilers read of a status and
// no more: not the GPUs' and MIG instances' UUIDs, PCI addresses, instance
// placements and IDs, the interconnect matrix or the CUDA version
// (gpunode_status() gives them empty). Readers ask for the spec and status
// through gpunode_spec(), gpunode_status() or decode_gpunode() below, never
// the DOM's (but for the three spec fields above): an object decoded
// another way (a test's, a write's answer) keeps them in the DOM, and these
// read them from there. Only an object that decodes whole
// (api::decode_gpunode) is split; any other stays in the DOM as it came.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/api/codec.h"
#include "gpupool/api/gpunode.h"
#include "gpupool/kube/object.h"

namespace gpupool::stored {

// A string many stored objects repeat (a GPU model, catalog ID, MIG
// profile, driver version, a condition's reason or message), held once
// while any holds it: the same value gives the same pointer.
using SharedString = std::shared_ptr<const std::string>;
SharedString shared_string(std::string_view value);

struct ReportedInstance {  // a MIG instance: api::MIGInstanceStatus less uuid, placement, gpuInstanceID
  SharedString profile;
  std::int64_t memory_mib = 0;
};

struct ReportedGPU {  // api::GPUStatus less uuid and pciBusID
  SharedString model;
  SharedString catalog_id;
  std::int64_t memory_mib = 0;
  std::vector<ReportedInstance> instances;  // partition.instances
  std::vector<std::string> health_reasons;  // nearly always empty
  std::int32_t index = 0;
  std::optional<api::GPUVendor> vendor;
  std::optional<api::GPUHealth> health;
  std::optional<api::MIGMode> mig_mode;                        // partition.migMode
  std::optional<api::AMDComputePartition> compute_partition;  // partition.computePartition
  std::optional<api::AMDMemoryPartition> memory_partition;    // partition.memoryPartition
  bool capable = false;                                        // partition.capable
};

// A condition or an operation, its words shared: api::Condition and
// api::OperationStatus hold three strings of their own each (an agent
// reports the same reasons and messages on most nodes).
struct ReportedCondition {
  SharedString type;
  SharedString reason;
  SharedString message;
  std::int64_t observed_generation = 0;
  api::Time last_transition_time;
  api::ConditionStatus status = api::ConditionStatus::unknown;
};

struct ReportedOperation {
  SharedString reason;
  SharedString message;
  std::int64_t observed_generation = 0;
  std::optional<api::Time> last_transition_time;
  api::OperationType type = api::OperationType::driver;
  api::OperationPhase phase = api::OperationPhase::pending;
};

// api::GPUNodeStatus less the interconnect and the CUDA version. The GPUs
// are held once for every GPUNode that reports the same (nodes of one model
// and layout, all healthy, report the same eight GPUs).
struct GPUNodeReport {
  std::int64_t observed_generation = 0;
  std::vector<ReportedCondition> conditions;
  std::shared_ptr<const std::vector<ReportedGPU>> gpus;  // never null
  std::vector<ReportedOperation> operations;
  SharedString driver_version;
  std::optional<api::Time> last_heartbeat_time;
  std::int32_t gpu_count = 0;
};

// What the DOM of a split GPUNode no longer holds.
struct GPUNodeParts : kube::ObjectPart {
  // The spec less nodeName, pool and disruptionAllowed (left empty here),
  // shared by every stored GPUNode whose spec is otherwise the same.
  std::shared_ptr<const api::GPUNodeSpec> spec;
  std::optional<GPUNodeReport> report;  // the status; none when it has none
};

// DecodeTrim::take_part for GPUNodes: when the parsed object decodes as a
// GPUNode (api::decode_gpunode), takes the status and the spec but for its
// nodeName, pool and disruptionAllowed out of it and returns them as
// GPUNodeParts; otherwise leaves it whole and returns null.
std::shared_ptr<const kube::ObjectPart> take_gpunode_parts(rapidjson::Document& parsed);

// The GPUNode's spec: from its parts when it was split, else decoded from
// its DOM. Null when it does not decode.
std::optional<api::GPUNodeSpec> gpunode_spec(const kube::Object& gpunode);

// The GPUNode's status as reported: from its record when it was split, else
// decoded from its DOM. Null when it has none, or one that does not decode.
std::optional<api::GPUNodeStatus> gpunode_status(const kube::Object& gpunode);

// The whole GPUNode, as api::decode_gpunode reads it, spec and status from
// its parts when it was split.
api::Decoded<api::GPUNode> decode_gpunode(const kube::Object& gpunode);

}  // namespace gpupool::stored
