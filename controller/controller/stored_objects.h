// How the controller process keeps whole objects in its informers' stores.
// Every informer of kube::Object it asks for passes this one filter, so the
// controllers in the process share them (the factory shares per filter name).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "gpupool/kube/object.h"
#include "gpupool/pool_controller/pool_reconciler.h"
#include "gpupool/runtime/informer.h"
#include "gpupool/stored/gpunode.h"

namespace gpupool::controller {

// Every object, without metadata.managedFields (often a third of a Node or
// GPUNode) but for the pool reconciler's own entries on Nodes: it reads
// which labels it applied. Nothing here writes a stored Node back whole; the
// other kinds keep no entry, and a write without them keeps the server's.
// The trim both filters share, with `status_members` left out as well.
inline kube::DecodeTrim lean_trim(std::vector<std::string> status_members) {
  return {true, std::string(pool_controller::PoolReconciler::kLabelManagerPrefix), std::move(status_members), {}, {}, {}};
}

inline runtime::InformerFilter<kube::Object> stored_objects() {
  static const kube::DecodeTrim trim = lean_trim({});
  return {"lean", {}, [](std::string_view json) { return kube::decode_object(json, trim); }};
}

// Nodes as stored_objects() keeps them, less what no reconciler here reads
// (they read labels, taints, spec.unschedulable, annotations, the type and
// status of status.conditions, and status.capacity): a real node's image
// list alone is often larger than the rest of it, and each condition's
// heartbeat time, reason and message were a third of a kwok Node as kept
// (3.75 KB of heap per Node at 5,000 nodes, heaptrack). A Node whose
// conditions' heartbeats alone changed is stored unchanged but for its
// resourceVersion, so predicates see no change.
inline kube::DecodeTrim node_trim() {
  kube::DecodeTrim trim = lean_trim({"images", "nodeInfo", "addresses", "daemonEndpoints", "volumesInUse",
                                     "volumesAttached", "config", "runtimeHandlers", "features", "allocatable"});
  trim.condition_members = {"type", "status"};
  return trim;
}

inline runtime::InformerFilter<kube::Object> stored_nodes() {
  static const kube::DecodeTrim trim = node_trim();
  return {"lean-node", {}, [](std::string_view json) { return kube::decode_object(json, trim); }};
}

// GPUNodes as stored_objects() keeps them, split (stored/gpunode.h): the
// spec held once for all GPUNodes with the same but for nodeName, pool and
// disruptionAllowed, the status (the agent's report) as a compact record,
// without what no reconciler here reads: the GPUs' and MIG instances'
// UUIDs, the instances' placements and IDs, PCI addresses, the
// interconnect matrix and the CUDA version (they read a GPU's index, model,
// catalog ID, vendor, memory, partition mode, health and its reasons; an
// instance's profile and memory; conditions and operations whole). A
// GPUNode that does not decode stays in the DOM, less the same fields.
// Readers go through stored::gpunode_spec, gpunode_status or
// decode_gpunode. The pool reconciler writes a GPUNode's spec from its
// stored copy without the status (pool_reconciler.cpp, write_spec), the
// spec replaced whole; nothing writes the status.
inline kube::DecodeTrim gpunode_trim() {
  kube::DecodeTrim trim = lean_trim({"interconnect", "cudaVersion"});
  trim.drop_paths = {{"status", "gpus", "*", "uuid"},
                     {"status", "gpus", "*", "pciBusID"},
                     {"status", "gpus", "*", "partition", "instances", "*", "uuid"},
                     {"status", "gpus", "*", "partition", "instances", "*", "gpuInstanceID"},
                     {"status", "gpus", "*", "partition", "instances", "*", "placement"}};
  trim.take_part = stored::take_gpunode_parts;
  return trim;
}

inline runtime::InformerFilter<kube::Object> stored_gpunodes() {
  static const kube::DecodeTrim trim = gpunode_trim();
  return {"lean-gpunode", {}, [](std::string_view json) { return kube::decode_object(json, trim); }};
}

}  // namespace gpupool::controller
