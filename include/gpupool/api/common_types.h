// Types more than one gpupool.io kind uses (docs/api.md, "Shared types"):
// rollout rules, sharing, taints, the driver, monitoring, AMD partitions.
// Member initialisers are the CRD defaults: an absent field decodes to them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "gpupool/api/duration.h"
#include "gpupool/api/enum_names.h"

namespace gpupool::api {

// k8s intstr.IntOrString: 1 (a number) or "25%" (a string); encoding writes
// the same form back.
struct IntOrString {
  std::variant<std::int32_t, std::string> value{std::int32_t{0}};

  IntOrString() = default;
  // Implicit, so that `IntOrString x = 1;` and `= "25%"` read naturally.
  IntOrString(std::int32_t i) : value(i) {}
  IntOrString(std::string s) : value(std::move(s)) {}
  IntOrString(const char* s) : value(std::string(s)) {}
  bool is_int() const { return std::holds_alternative<std::int32_t>(value); }

  bool operator==(const IntOrString&) const = default;
};

enum class Weekday { mon, tue, wed, thu, fri, sat, sun };
GPUPOOL_API_ENUM_NAMES(Weekday, {Weekday::mon, "Mon"}, {Weekday::tue, "Tue"}, {Weekday::wed, "Wed"},
                       {Weekday::thu, "Thu"}, {Weekday::fri, "Fri"}, {Weekday::sat, "Sat"}, {Weekday::sun, "Sun"})

struct MaintenanceWindow {
  std::vector<Weekday> days;  // required
  std::string start;          // required, "22:00"
  Duration duration;          // required
  std::string time_zone = "UTC";

  bool operator==(const MaintenanceWindow&) const = default;
};

struct DrainOptions {
  Duration timeout = Duration::literal("10m");
  std::string skip_pod_label = "gpupool.io/skip-drain";
  bool delete_empty_dir_data = false;
  bool force = false;

  bool operator==(const DrainOptions&) const = default;
};

// The order a rollout takes the nodes in: by name, or by the value of a node
// label (then by name; nodes without the label last), e.g.
// topology.kubernetes.io/zone to go zone by zone, or a label an administrator
// sets to pick canaries ("0-canary" sorts first).
enum class RolloutOrderBy { name, label };
GPUPOOL_API_ENUM_NAMES(RolloutOrderBy, {RolloutOrderBy::name, "Name"}, {RolloutOrderBy::label, "Label"})

struct RolloutOrder {
  RolloutOrderBy by = RolloutOrderBy::name;
  std::string label;  // required iff by == label (CEL), label-key syntax

  bool operator==(const RolloutOrder&) const = default;
};

// GPUPool.spec.driver.upgradeStrategy and GPUPolicy.spec.upgrade.
struct UpgradeStrategy {
  IntOrString max_unavailable = 1;  // an integer >= 1 or "1%".."100%"
  std::int32_t failure_budget = 1;
  DrainOptions drain;
  // Leave a node whose update failed cordoned (true), or uncordon it so its
  // GPUs serve again as they were (false).
  bool cordon_on_failure = true;
  std::vector<MaintenanceWindow> maintenance_windows;  // empty: any time
  RolloutOrder order;

  bool operator==(const UpgradeStrategy&) const = default;
};

// How MIG devices are advertised (GPUPool.spec.partitioning.nvidia.strategy,
// GPUNode.spec.partitioning.strategy), as the NVIDIA device plugin names them.
enum class MIGStrategy { single, mixed };
GPUPOOL_API_ENUM_NAMES(MIGStrategy, {MIGStrategy::single, "single"}, {MIGStrategy::mixed, "mixed"})

enum class SharingMode { exclusive, time_slicing, mps };
GPUPOOL_API_ENUM_NAMES(SharingMode, {SharingMode::exclusive, "exclusive"}, {SharingMode::time_slicing, "timeSlicing"},
                       {SharingMode::mps, "mps"})

struct TimeSlicing {
  std::int32_t replicas = 0;  // required
  bool rename_resources = false;

  bool operator==(const TimeSlicing&) const = default;
};

struct MPS {
  std::int32_t replicas = 0;  // required
  std::optional<std::int32_t> default_active_thread_percentage;

  bool operator==(const MPS&) const = default;
};

struct Sharing {
  SharingMode mode = SharingMode::exclusive;
  std::optional<TimeSlicing> time_slicing;  // JSON "timeSlicing"
  std::optional<MPS> mps;

  bool operator==(const Sharing&) const = default;
};

enum class TaintEffect { no_schedule, prefer_no_schedule, no_execute };
GPUPOOL_API_ENUM_NAMES(TaintEffect, {TaintEffect::no_schedule, "NoSchedule"},
                       {TaintEffect::prefer_no_schedule, "PreferNoSchedule"}, {TaintEffect::no_execute, "NoExecute"})

struct Taint {
  std::string key;  // required
  std::string value;
  TaintEffect effect = TaintEffect::no_schedule;  // required

  bool operator==(const Taint&) const = default;
};

enum class InstallerKind { container, package, runfile, preinstalled };
GPUPOOL_API_ENUM_NAMES(InstallerKind, {InstallerKind::container, "container"}, {InstallerKind::package, "package"},
                       {InstallerKind::runfile, "runfile"}, {InstallerKind::preinstalled, "preinstalled"})

struct DriverInstaller {
  InstallerKind kind = InstallerKind::container;
  std::string image;  // required iff kind=container (CEL)
  std::map<std::string, std::string> parameters;

  bool operator==(const DriverInstaller&) const = default;
};

struct DriverSpec {
  std::string version;  // required, "570.133.20"
  DriverInstaller installer;
  std::optional<UpgradeStrategy> upgrade_strategy;  // GPUPool only

  bool operator==(const DriverSpec&) const = default;
};

struct MonitoringToggle {
  bool enabled = false;
  bool operator==(const MonitoringToggle&) const = default;
};

struct Monitoring {
  bool enabled = true;
  Duration scrape_interval = Duration::literal("30s");
  MonitoringToggle alerts{true};
  MonitoringToggle dashboard{false};

  bool operator==(const Monitoring&) const = default;
};

enum class AMDComputePartition { spx, dpx, tpx, qpx, cpx };
GPUPOOL_API_ENUM_NAMES(AMDComputePartition, {AMDComputePartition::spx, "SPX"}, {AMDComputePartition::dpx, "DPX"},
                       {AMDComputePartition::tpx, "TPX"}, {AMDComputePartition::qpx, "QPX"},
                       {AMDComputePartition::cpx, "CPX"})

enum class AMDMemoryPartition { nps1, nps2, nps4, nps8 };
GPUPOOL_API_ENUM_NAMES(AMDMemoryPartition, {AMDMemoryPartition::nps1, "NPS1"}, {AMDMemoryPartition::nps2, "NPS2"},
                       {AMDMemoryPartition::nps4, "NPS4"}, {AMDMemoryPartition::nps8, "NPS8"})

struct AMDPartitioning {
  std::optional<AMDComputePartition> compute_partition;
  std::optional<AMDMemoryPartition> memory_partition;

  bool operator==(const AMDPartitioning&) const = default;
};

}  // namespace gpupool::api
