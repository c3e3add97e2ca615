// GPUPool (cluster-scoped): a set of nodes selected by label and what they
// should run: driver, partitioning, sharing, monitoring. docs/api.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/api/common_types.h"
#include "gpupool/api/meta.h"
#include "gpupool/api/quantity.h"

namespace gpupool::api {

enum class Vendor { auto_, nvidia, amd };
GPUPOOL_API_ENUM_NAMES(Vendor, {Vendor::auto_, "auto"}, {Vendor::nvidia, "nvidia"}, {Vendor::amd, "amd"})

struct MIGDeviceLayout {
  std::vector<std::int32_t> gpus;                  // JSON "gpus"; empty: every GPU not named elsewhere
  std::map<std::string, std::int32_t> profiles;    // required: "3g.40gb" -> count

  bool operator==(const MIGDeviceLayout&) const = default;
};

// Exactly one of layout and devices (CEL).
struct MIGPartitioning {
  MIGStrategy strategy = MIGStrategy::single;
  std::string layout;  // "all-1g.10gb", "all-balanced", a mig-parted config name
  std::vector<MIGDeviceLayout> devices;

  bool operator==(const MIGPartitioning&) const = default;
};

struct Partitioning {
  std::optional<MIGPartitioning> nvidia;
  std::optional<AMDPartitioning> amd;

  bool operator==(const Partitioning&) const = default;
};

struct GPUPoolSpec {
  LabelSelector node_selector;  // required
  std::int32_t priority = 0;
  Vendor vendor = Vendor::auto_;
  std::optional<LocalObjectReference> policy_ref;  // a GPUPolicy
  bool paused = false;
  std::optional<DriverSpec> driver;
  std::optional<Partitioning> partitioning;
  Sharing sharing;
  Monitoring monitoring;
  std::map<std::string, std::string> node_labels;
  std::vector<Taint> node_taints;

  bool operator==(const GPUPoolSpec&) const = default;
};

struct NodeCounts {
  std::int32_t total = 0;
  std::int32_t ready = 0;
  std::int32_t updating = 0;
  std::int32_t failed = 0;
  std::int32_t conflicted = 0;

  bool operator==(const NodeCounts&) const = default;
};

struct RolloutStatus {
  std::string target_version;
  std::int32_t updated = 0;
  std::int32_t pending = 0;
  std::int32_t failed = 0;
  bool paused = false;
  std::string message;

  bool operator==(const RolloutStatus&) const = default;
};

struct GPUPoolStatus {
  std::int64_t observed_generation = 0;
  std::vector<Condition> conditions;  // Ready, Progressing, Degraded, Conflict
  NodeCounts nodes;
  std::map<std::string, QuantityValue> capacity;  // by resource name
  std::map<std::string, QuantityValue> granted;
  std::optional<RolloutStatus> rollout;

  bool operator==(const GPUPoolStatus&) const = default;
};

struct GPUPool {
  ObjectMeta metadata;
  GPUPoolSpec spec;
  std::optional<GPUPoolStatus> status;  // absent until the controller writes one

  bool operator==(const GPUPool&) const = default;
};

}  // namespace gpupool::api
