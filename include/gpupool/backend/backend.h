// The one interface between the node agent and a node's GPUs. Every way of
// reaching GPUs implements it: NVML loaded at run time (nvml_backend.h), the
// nvidia-smi command (nvidia_smi_backend.h), AMD's amd-smi / rocm-smi
// (amd_backend.h) and the simulated GPUs of tests and the local cluster
// (simulated_backend.h). The agent never knows which one it talks to.
//
// Contract shared by every implementation:
// - GPUs are named by their index as the vendor tool numbers them (NVML /
//   nvidia-smi index, amd-smi GPU id).
// - Every call either succeeds or throws BackendError; nothing else escapes.
//   The error's `code` is the vendor's own name for the failure where there is
//   one ("NVML_ERROR_NOT_SUPPORTED", "NVML_ERROR_IN_USE", the exit status of a
//   command as "exit 6"), so a person can search for it.
// - Calls are synchronous and thread-compatible: the agent serialises them
//   (one backend object, one caller at a time). inventory() and metrics() are
//   read-only and may be called at any time; the mutating calls are made only
//   by the agent's operation code.
// - Reads report the truth of the hardware now; an implementation keeps no
//   state the hardware does not also hold, so an agent restarted half-way
//   through a change reads where it stands. The one exception is a rate that
//   needs two readings apart in time (NVML's GPM metrics of MIG instances):
//   the NVML backend keeps the previous reading of each instance, so the
//   first metrics() after start (or after an instance appears) leaves those
//   fields empty. Losing it on restart costs one round of values, no truth.
// - Metrics never invent a number: a field the backend, the tool or the
//   hardware cannot report stays empty (std::nullopt), never 0.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpupool/gpu/catalog.h"

namespace gpupool::backend {

class BackendError : public std::runtime_error {
 public:
  BackendError(std::string code, const std::string& message)
      : std::runtime_error(message), code_(std::move(code)) {}
  // "NVML_ERROR_NOT_SUPPORTED", "exit 6", "parse", "not-found", "refused", ...
  const std::string& code() const { return code_; }

 private:
  std::string code_;
};

// MIG mode as the driver reports it: the current mode and the one pending a
// GPU reset (they differ after `nvidia-smi -mig 1` on a GPU in use).
enum class MigMode { disabled, enabled };
struct MigModeState {
  MigMode current = MigMode::disabled;
  MigMode pending = MigMode::disabled;
  bool operator==(const MigModeState&) const = default;
};

// One GPU instance (and its first compute instance) on a MIG-enabled GPU.
struct MigInstance {
  std::string profile;           // catalog profile name, "3g.40gb"
  int profile_id = -1;           // NVML GPU-instance profile id
  int placement_start = 0;       // memory slice it starts at
  int placement_size = 0;        // memory slices it occupies
  int gpu_instance_id = -1;      // GI id the driver gave it
  int compute_instance_id = -1;  // CI id, -1 when it has no compute instance
  std::string uuid;              // "MIG-..." (empty when unknown)
  // Its memory as this GPU and driver report it (the profile's size moves a
  // little between driver branches; the catalog's is nominal); 0 when unknown.
  std::int64_t memory_mib = 0;
  bool operator==(const MigInstance&) const = default;
};

struct GpuInfo {
  int index = 0;
  std::string uuid;                   // "GPU-...": stable identity of the board
  std::string name;                   // as reported: "NVIDIA A100-SXM4-80GB"
  std::string catalog_id;             // catalog model id when recognised, else ""
  gpu::Vendor vendor = gpu::Vendor::nvidia;
  std::uint32_t pci_device_id = 0;    // 0x20B2 (device part only)
  std::string pci_bus_id;             // "00000000:07:00.0"
  std::int64_t memory_mib = 0;
  int compute_major = 0, compute_minor = 0;  // CUDA compute capability (NVIDIA), 0 when unknown
  bool mig_capable = false;
  MigModeState mig;                   // disabled/disabled when not capable
  std::vector<MigInstance> instances; // sorted by placement_start
  // AMD partitioning ("SPX".."CPX", "NPS1".."NPS8"); empty when not AMD or unknown.
  std::string compute_partition;
  std::string memory_partition;
  bool operator==(const GpuInfo&) const = default;
};

// How two GPUs reach each other, in nvidia-smi topo -m's words.
enum class LinkKind { nvlink, pcie_same_switch, pcie_multi_switch, pcie_host_bridge, same_numa, cross_numa, xgmi, unknown };
struct GpuLink {
  int gpu_a = 0, gpu_b = 0;  // gpu_a < gpu_b
  LinkKind kind = LinkKind::unknown;
  int nvlinks = 0;           // NVLink (or xGMI) links between them; 0 for PCIe
  bool operator==(const GpuLink&) const = default;
};
// "NV12", "PIX", "PXB", "PHB", "NODE", "SYS", "XGMI", "X": nvidia-smi topo -m's spelling
std::string link_label(const GpuLink& link);

struct Inventory {
  std::string driver_version;   // "570.133.20", amd: the amdgpu driver version
  std::string cuda_version;     // CUDA driver API version "12.8"; "" on AMD
  std::vector<GpuInfo> gpus;    // sorted by index
  std::vector<GpuLink> links;   // one per pair of GPUs where known, sorted
  bool operator==(const Inventory&) const = default;
};

// A process holding a GPU (or one MIG instance of it).
struct GpuProcess {
  int gpu_index = 0;
  int gpu_instance_id = -1;   // -1: the whole GPU
  std::uint32_t pid = 0;
  std::int64_t used_memory_mib = 0;
  std::string pod_uid;        // the simulated backend knows it; real ones leave it empty
  bool operator==(const GpuProcess&) const = default;
};

// What one MIG GPU instance is doing, as a metrics exporter publishes it per
// instance. Every field is empty where the backend, driver or GPU cannot say.
struct InstanceMetrics {
  int gpu_instance_id = -1;                      // MigInstance::gpu_instance_id
  // Share of the time the instance's engines ran work, 0..100: NVML GPM's
  // GRAPHICS_UTIL (else SM_UTIL) of the instance (Hopper and newer), the
  // per-instance counterpart of GpuMetrics::utilization_percent.
  std::optional<double> utilization_percent;
  std::optional<double> graphics_engine_active;  // 0..1, dcgm-exporter's DCGM_FI_PROF_GR_ENGINE_ACTIVE
  std::optional<double> dram_active;             // 0..1, DCGM_FI_PROF_DRAM_ACTIVE
  std::optional<std::int64_t> memory_used_mib;   // of the instance's own memory
  std::optional<std::int64_t> memory_free_mib;
  std::optional<std::int64_t> memory_total_mib;
  bool operator==(const InstanceMetrics&) const = default;
};

// NVML's clock event ("throttle") reasons: the bits of
// nvmlDeviceGetCurrentClocksEventReasons and of dcgm-exporter's
// DCGM_FI_DEV_CLOCK_THROTTLE_REASONS / CLOCKS_EVENT_REASONS, with the
// vendor-neutral names GpuMetrics::clock_event_reasons uses.
struct ClockEventReason {
  std::uint64_t nvml_bit;
  const char* name;
};
inline constexpr ClockEventReason kClockEventReasons[] = {
    {0x001, "gpu_idle"},
    {0x002, "applications_clocks_setting"},
    {0x004, "sw_power_cap"},
    {0x008, "hw_slowdown"},
    {0x010, "sync_boost"},
    {0x020, "sw_thermal_slowdown"},
    {0x040, "hw_thermal_slowdown"},
    {0x080, "hw_power_brake_slowdown"},
    {0x100, "display_clock_setting"},
};
// The names of the reasons set in an NVML mask, in kClockEventReasons order;
// bits NVML has not defined are left out (the mask keeps them).
std::vector<std::string> clock_event_reason_names(std::uint64_t nvml_mask);

// What one GPU is doing, as a metrics exporter (vendor-neutral families,
// dcgm-exporter's and AMD's device-metrics-exporter's names) publishes it.
// Every optional is empty where the backend, tool, driver or GPU cannot say;
// a backend never fills a gap with a made-up value.
struct GpuMetrics {
  int index = 0;
  std::optional<double> temperature_celsius;
  std::optional<double> power_watts;
  // Share of the time work ran on the GPU, 0..100 (NVML utilization.gpu, AMD
  // gfx activity). Empty for an NVIDIA GPU in MIG mode: see `instances`.
  std::optional<double> utilization_percent;
  std::optional<std::int64_t> memory_used_mib;
  std::optional<std::int64_t> memory_free_mib;
  std::optional<std::int64_t> memory_total_mib;
  // Energy used since the driver was loaded (NVML
  // nvmlDeviceGetTotalEnergyConsumption; AMD's energy accumulator).
  std::optional<std::int64_t> energy_millijoules;
  std::optional<std::int64_t> sm_clock_mhz;      // AMD: the (first) gfx clock
  std::optional<std::int64_t> memory_clock_mhz;
  std::optional<std::int64_t> ecc_corrected_total;    // volatile counts since driver load
  std::optional<std::int64_t> ecc_uncorrected_total;
  // The active clock event ("throttle") reasons by their kClockEventReasons
  // names; an empty list: none active; empty optional: unknown.
  std::optional<std::vector<std::string>> clock_event_reasons;
  // The same as NVML's raw bitmask, where the backend reads one.
  std::optional<std::uint64_t> clock_event_reasons_mask;
  // One per MIG GPU instance, sorted by gpu_instance_id; empty when the GPU
  // is not in MIG mode (or the backend cannot see its instances). AMD
  // partitions are not listed here: amd-smi reports each as a GPU of its own.
  std::vector<InstanceMetrics> instances;
  bool operator==(const GpuMetrics&) const = default;
};

struct XidEvent {
  int gpu_index = 0;
  int xid = 0;
  std::int64_t time_unix_ms = 0;
};

// What a MIG mode change did: applied now, or accepted but waiting for a GPU
// reset that the GPU refused because it is in use (the state NVIDIA's
// mig-manager is known to wedge in). The agent reports the latter as
// ResetRequired.
enum class MigModeChange { applied, reset_required };

class GpuBackend {
 public:
  virtual ~GpuBackend() = default;
  // "nvml", "nvidia-smi", "amd", "simulated"
  virtual std::string name() const = 0;

  virtual Inventory inventory() = 0;
  virtual std::vector<GpuMetrics> metrics() = 0;
  virtual std::vector<GpuProcess> processes() = 0;
  // XID events that occur within `timeout`; an empty vector when none did.
  virtual std::vector<XidEvent> wait_xid_events(std::chrono::milliseconds timeout) = 0;

  // MIG. Profiles are catalog names; placements are memory-slice starts that
  // must be among the profile's placements (wrong ones are refused as the
  // driver refuses them, NVML_ERROR_INVALID_ARGUMENT / INSUFFICIENT_RESOURCES).
  virtual MigModeChange set_mig_mode(int gpu_index, bool enabled) = 0;
  // Creates the GPU instance and one compute instance spanning it.
  virtual MigInstance create_mig_instance(int gpu_index, const std::string& profile, int placement_start) = 0;
  // Destroys its compute instances, then the GPU instance.
  virtual void destroy_mig_instance(int gpu_index, int gpu_instance_id) = 0;

  // AMD partition modes ("CPX", "NPS4"); empty leaves that mode as it is.
  // A memory partition change needs the driver reloaded: backends that cannot
  // do it themselves throw BackendError with code "driver-reload-required".
  virtual void set_amd_partition(int gpu_index, const std::string& compute, const std::string& memory) = 0;
};

}  // namespace gpupool::backend
