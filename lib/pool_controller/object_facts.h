// Private to lib/pool_controller: what the pool reconciler reads from Node,
// GPUNode and Lease objects, without copying them.
#pragma once

#include <rapidjson/document.h>

#include <chrono>
#include <optional>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gpupool/api/gpunode.h"
#include "gpupool/api/gpupool.h"
#include "gpupool/kube/node_conditions.h"
#include "gpupool/kube/object.h"
#include "gpupool/pool/membership.h"
#include "gpupool/pool/node_taints.h"

namespace gpupool::pool_controller {

std::map<std::string, std::string> labels_of(const rapidjson::Value& obj);
// What membership reads of a GPUPool (`obj` as stored, `pool` decoded from
// it), and the same decoded here: none when its spec cannot be read.
pool::PoolSelector pool_selector(const kube::Object& obj, const api::GPUPool& pool);
std::optional<pool::PoolSelector> read_pool_selector(const kube::Object& obj);
std::string annotation_of(const rapidjson::Value& obj, const char* key);
using kube::node_ready;
bool node_unschedulable(const rapidjson::Value& node);
std::vector<pool::NodeTaint> node_taints(const rapidjson::Value& node);
// The label keys `manager` holds through server-side apply (managedFields).
std::set<std::string> applied_label_keys(const rapidjson::Value& obj, const std::string& manager);
// The same for one managedFields entry (none unless its operation is Apply).
std::set<std::string> applied_label_keys_of_entry(const rapidjson::Value& entry);
// The agent's Lease is renewed within its duration.
bool lease_alive(const rapidjson::Value& lease, std::chrono::system_clock::time_point now);
// A Lease's spec.renewTime; nullopt when it has none (or not RFC 3339).
std::optional<std::chrono::system_clock::time_point> lease_renewed(const rapidjson::Value& lease);
// The extended GPU resources the Node advertises (status.capacity, the agent's or device plugin's names).
std::map<std::string, std::int64_t> gpu_capacity(const rapidjson::Value& node);

// What the agent reports about the GPUNode's current spec generation: the
// generation itself, or the one before it where the controller's withdrawal
// made it (gpupool.io/settled-generation S, generation S+1, permission off,
// status of S): the spec of S+1 is S's with the permission off.
struct GpuNodeState {
  bool observed = false;    // status.observedGeneration == that generation
  bool up_to_date = false;  // DriverReady and PartitionReady True for this generation
  bool failed = false;      // an operation Failed for this generation
  std::string failure;      // "Driver: InstallFailed: ..." when failed
  // The agent holds the Node cordoned for a change: its Drain operation is
  // InProgress (of any generation: the cordon outlives a spec change). An
  // agent sets it when it cordons and ends it once it has uncordoned.
  bool drain_held = false;
  // gpupool.io/withdrawn-generation W is set and the agent has not reported
  // a generation after W: it may still act on the permission W held.
  bool withdrawal_unseen = false;
};
GpuNodeState gpunode_state(const api::GPUNode& node);

// resourceVersion a is newer than b (etcd revisions; a non-number is never newer).
bool newer_resource_version(const std::string& a, const std::string& b);

// A write's answer, kept by a reconciler until its informer shows the write:
// compacted as the stores keep objects (controller/controller/
// stored_objects.h: one block of its own size; managedFields left out but
// the pool reconciler's label entries). As parsed, an answer sits in
// RapidJSON's first 64 KiB chunk whatever its size: the GPUNode specs and
// permissions of a rollout at 5,000 nodes, remembered so, held 200 MiB.
std::shared_ptr<const rapidjson::Document> compact_answer(const rapidjson::Value& answer);
// The same, as an Object (its status, if any, left in the DOM: stored::gpunode_status reads it there).
std::shared_ptr<const kube::Object> compact_answer_object(const rapidjson::Value& answer);

}  // namespace gpupool::pool_controller
