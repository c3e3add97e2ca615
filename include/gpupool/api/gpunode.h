// GPUNode (cluster-scoped, named after its Node): the controller writes the
// spec (what the node should run), the node agent the status. docs/api.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/api/common_types.h"
#include "gpupool/api/gpupolicy.h"
#include "gpupool/api/meta.h"

namespace gpupool::api {

struct MIGInstance {
  std::string profile;                     // required, "1g.10gb"
  std::optional<std::int32_t> placement;   // start slice; absent: any

  bool operator==(const MIGInstance&) const = default;
};

struct GPUMIGLayout {
  std::int32_t index = 0;  // required
  bool enabled = false;    // required: MIG mode wanted on this GPU
  std::vector<MIGInstance> instances;

  bool operator==(const GPUMIGLayout&) const = default;
};

struct NodePartitioning {
  // How MIG devices are advertised; absent means mixed (copied from the pool).
  std::optional<MIGStrategy> strategy;
  std::vector<GPUMIGLayout> mig;  // keyed by index
  std::optional<AMDPartitioning> amd;

  bool operator==(const NodePartitioning&) const = default;
};

struct GPUNodeSpec {
  std::string node_name;  // required, == metadata.name
  std::string pool;       // owning GPUPool
  std::optional<DriverSpec> driver;  // upgradeStrategy unused here
  NodePartitioning partitioning;
  Sharing sharing;
  Monitoring monitoring;
  bool disruption_allowed = false;  // the agent may drain/reboot/reconfigure now
  DrainOptions drain;               // how to drain (copied from the pool's upgrade strategy)
  bool cordon_on_failure = true;    // leave the node cordoned when an operation fails
  // The pool's health rules (copied from its GPUPolicy's spec.health): how
  // the agent judges status.gpus[].health. Absent: no rules, no GPU is judged
  // Unhealthy or Degraded. maxUnhealthyNodes is copied but not used here.
  std::optional<HealthRules> health;

  bool operator==(const GPUNodeSpec&) const = default;
};

enum class GPUVendor { nvidia, amd };
GPUPOOL_API_ENUM_NAMES(GPUVendor, {GPUVendor::nvidia, "nvidia"}, {GPUVendor::amd, "amd"})

enum class GPUHealth { healthy, degraded, unhealthy, unknown };
GPUPOOL_API_ENUM_NAMES(GPUHealth, {GPUHealth::healthy, "Healthy"}, {GPUHealth::degraded, "Degraded"},
                       {GPUHealth::unhealthy, "Unhealthy"}, {GPUHealth::unknown, "Unknown"})

enum class MIGMode { enabled, disabled, pending, not_supported };
GPUPOOL_API_ENUM_NAMES(MIGMode, {MIGMode::enabled, "Enabled"}, {MIGMode::disabled, "Disabled"},
                       {MIGMode::pending, "Pending"}, {MIGMode::not_supported, "NotSupported"})

struct MIGInstanceStatus {
  std::string profile;
  std::int32_t placement = 0;
  std::int32_t gpu_instance_id = 0;  // JSON "gpuInstanceID"
  std::string uuid;
  std::int64_t memory_mib = 0;       // JSON "memoryMiB": as the GPU reports it; 0/absent when unknown

  bool operator==(const MIGInstanceStatus&) const = default;
};

struct PartitionStatus {
  bool capable = false;
  std::optional<MIGMode> mig_mode;
  std::vector<MIGInstanceStatus> instances;
  std::optional<AMDComputePartition> compute_partition;
  std::optional<AMDMemoryPartition> memory_partition;

  bool operator==(const PartitionStatus&) const = default;
};

struct GPUStatus {
  std::int32_t index = 0;  // required
  std::string uuid;
  std::string model;       // as reported, "NVIDIA A100-SXM4-80GB"
  std::string catalog_id;  // JSON "catalogID"; empty if unknown
  std::optional<GPUVendor> vendor;
  std::int64_t memory_mib = 0;  // JSON "memoryMiB"
  std::string pci_bus_id;       // JSON "pciBusID"
  PartitionStatus partition;
  std::optional<GPUHealth> health;
  std::vector<std::string> health_reasons;

  bool operator==(const GPUStatus&) const = default;
};

enum class OperationType { driver, partition, sharing, monitoring, drain };
GPUPOOL_API_ENUM_NAMES(OperationType, {OperationType::driver, "Driver"}, {OperationType::partition, "Partition"},
                       {OperationType::sharing, "Sharing"}, {OperationType::monitoring, "Monitoring"},
                       {OperationType::drain, "Drain"})

enum class OperationPhase { pending, in_progress, succeeded, failed };
GPUPOOL_API_ENUM_NAMES(OperationPhase, {OperationPhase::pending, "Pending"},
                       {OperationPhase::in_progress, "InProgress"}, {OperationPhase::succeeded, "Succeeded"},
                       {OperationPhase::failed, "Failed"})

struct OperationStatus {
  OperationType type = OperationType::driver;     // required
  OperationPhase phase = OperationPhase::pending;  // required
  std::int64_t observed_generation = 0;  // the spec generation this operation carries out
  std::string reason;   // CamelCase step or cause: Draining, PodDisruptionBudget, ResetRequired, InstallFailed
  std::string message;
  std::optional<Time> last_transition_time;

  bool operator==(const OperationStatus&) const = default;
};

// How two GPUs of the node reach each other (nvidia-smi topo -m's words).
enum class GPULinkType { nvlink, xgmi, pix, pxb, phb, node, sys };
GPUPOOL_API_ENUM_NAMES(GPULinkType, {GPULinkType::nvlink, "NVLink"}, {GPULinkType::xgmi, "XGMI"},
                       {GPULinkType::pix, "PIX"}, {GPULinkType::pxb, "PXB"}, {GPULinkType::phb, "PHB"},
                       {GPULinkType::node, "NODE"}, {GPULinkType::sys, "SYS"})

struct GPULink {
  std::int32_t from = 0;  // required, GPU index
  std::int32_t to = 0;    // required, GPU index > from
  GPULinkType type = GPULinkType::sys;  // required
  std::int32_t links = 0;  // NVLink / xGMI links between them; 0 for PCIe paths

  bool operator==(const GPULink&) const = default;
};

struct GPUNodeStatus {
  std::int64_t observed_generation = 0;
  std::vector<Condition> conditions;  // Ready, DriverReady, PartitionReady, Healthy
  std::int32_t gpu_count = 0;
  std::vector<GPUStatus> gpus;
  std::string driver_version;
  std::string cuda_version;
  std::vector<OperationStatus> operations;  // keyed by type
  std::vector<GPULink> interconnect;        // one entry per pair of GPUs where known
  std::optional<Time> last_heartbeat_time;

  bool operator==(const GPUNodeStatus&) const = default;
};

struct GPUNode {
  ObjectMeta metadata;
  GPUNodeSpec spec;
  std::optional<GPUNodeStatus> status;

  bool operator==(const GPUNode&) const = default;
};

}  // namespace gpupool::api
