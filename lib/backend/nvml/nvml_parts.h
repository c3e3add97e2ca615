// The pieces of the NVML backend (nvml_backend.cpp puts them together), one
// file each. Every function throws BackendError through Library::check on an
// NVML failure; `gpu` is the NVML index, used in messages.
#pragma once

#include <chrono>
#include <compare>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpupool/backend/backend.h"
#include "gpupool/gpu/catalog.h"
#include "nvml_library.h"

namespace gpupool::backend::nvml {

// ---- nvml_system.cpp: driver, CUDA version, device handles
std::string driver_version(const Library& lib);
// "12.8" from nvmlSystemGetCudaDriverVersion's 12080; "" without the function.
std::string cuda_version(const Library& lib);
std::vector<nvmlDevice_t> device_handles(const Library& lib);
nvmlDevice_t device_handle(const Library& lib, int gpu);

// ---- nvml_gpu_info.cpp: one GPU of the inventory
// The catalog model of a GPU: by PCI device id, else by reported name; nullptr if none.
const gpu::GpuModel* find_model(const gpu::Catalog& catalog, const std::string& name, std::uint32_t pci_device_id);
const gpu::GpuModel* model_of(const Library& lib, const gpu::Catalog& catalog, nvmlDevice_t device, int gpu);
GpuInfo read_gpu(const Library& lib, const gpu::Catalog& catalog, nvmlDevice_t device, int gpu);

// ---- nvml_mig_read.cpp: profiles and instances as the driver reports them
// Whether the library has every function reading MIG state needs.
bool can_read_mig(const Api& api);
// One NVML_GPU_INSTANCE_PROFILE_* (or NVML_COMPUTE_INSTANCE_PROFILE_*) the
// device (or GPU instance) offers.
struct ProfileInfo {
  unsigned index = 0;           // the NVML_*_PROFILE_* constant
  unsigned id = 0;              // the profile id every other call takes
  unsigned slice_count = 0;     // compute slices
  unsigned instance_count = 0;  // most instances
  std::int64_t memory_mib = 0;  // memorySizeMB: the instance's memory as this driver reports it
};
// Enumerated from 0 until NVML answers NVML_ERROR_INVALID_ARGUMENT, skipping
// NVML_ERROR_NOT_SUPPORTED.
std::vector<ProfileInfo> gpu_instance_profiles(const Library& lib, nvmlDevice_t device, int gpu);
std::vector<ProfileInfo> compute_instance_profiles(const Library& lib, nvmlGpuInstance_t instance, int gpu);
std::vector<nvmlComputeInstance_t> compute_instances(const Library& lib, nvmlGpuInstance_t instance, int gpu);
// One MIG device (a compute instance, with a device handle of its own).
struct MigDevice {
  nvmlDevice_t handle{nullptr};
  int gpu_instance_id = -1;
  int compute_instance_id = -1;
};
// Every MIG device of `device`, in NVML's index order; empty when the library
// lacks the MIG device-handle functions.
std::vector<MigDevice> mig_devices(const Library& lib, nvmlDevice_t device, int gpu);
// (GI id, CI id) -> "MIG-..." for every MIG device; empty when the library
// lacks the MIG device-handle functions.
std::map<std::pair<int, int>, std::string> mig_device_uuids(const Library& lib, nvmlDevice_t device, int gpu);
// Whether MIG mode is on now; false when the GPU (or library) has no MIG.
bool mig_enabled(const Library& lib, nvmlDevice_t device, int gpu);
MigInstance describe_gpu_instance(const Library& lib, nvmlGpuInstance_t instance, int gpu, const gpu::GpuModel* model,
                                  const std::map<std::pair<int, int>, std::string>& uuids);
// Every GPU instance, sorted by placement start (MIG mode must be enabled).
std::vector<MigInstance> read_mig_instances(const Library& lib, nvmlDevice_t device, int gpu, const gpu::GpuModel* model);

// ---- nvml_mig_write.cpp: the MIG changes of GpuBackend
MigModeChange set_mig_mode(const Library& lib, nvmlDevice_t device, int gpu, bool enabled);
MigInstance create_mig_instance(const Library& lib, nvmlDevice_t device, int gpu, const gpu::GpuModel* model,
                                const std::string& profile, int placement_start);
void destroy_mig_instance(const Library& lib, nvmlDevice_t device, int gpu, int gpu_instance_id);

// ---- nvml_topology.cpp: links between GPUs
// `bus_ids[i]` is the PCI bus id of `devices[i]`.
std::vector<GpuLink> read_links(const Library& lib, const std::vector<nvmlDevice_t>& devices,
                                const std::vector<std::string>& bus_ids);

// ---- nvml_telemetry.cpp: metrics and processes of one GPU
// Every GpuMetrics field but `instances`.
GpuMetrics read_metrics(const Library& lib, nvmlDevice_t device, int gpu);
std::vector<GpuProcess> read_processes(const Library& lib, nvmlDevice_t device, int gpu);

// ---- nvml_gpm.cpp: GPM metrics of MIG instances, from two samples in time
// The GPM metrics between an instance's previous sample and this one (each
// empty when NVML reports it invalid), in NVML's percent.
struct GpmReading {
  std::optional<double> graphics_util;
  std::optional<double> sm_util;
  std::optional<double> dram_bw_util;
};
// Whose previous sample a new one is compared with: a GPU instance destroyed
// and made again (another UUID, profile or placement) starts afresh.
struct GpmKey {
  int gpu = 0;
  int gpu_instance_id = -1;
  int profile_id = -1;
  int placement_start = 0;
  std::string uuid;
  auto operator<=>(const GpmKey&) const = default;
};
// The one state the NVML backend keeps (backend.h allows it for rates): the
// last GPM sample of every MIG instance, two NVML sample buffers each. Its
// owner destroys it before nvmlShutdown.
class GpmSampler {
 public:
  explicit GpmSampler(const Library& lib) : lib_(lib) {}
  ~GpmSampler();  // frees every sample buffer
  GpmSampler(const GpmSampler&) = delete;
  GpmSampler& operator=(const GpmSampler&) = delete;

  // Whether the library has the GPM functions and `device` supports GPM.
  bool supported(nvmlDevice_t device, int gpu) const;
  // A round samples every instance there is now; end_round frees the buffers
  // of instances not sampled since begin_round (gone, or MIG turned off).
  void begin_round();
  void end_round();
  // Samples GPU instance key.gpu_instance_id of `device` now (nvmlGpmMigSampleGet)
  // and returns the metrics since the key's previous sample; nullopt on the
  // first sample of a key or when NVML answers NVML_ERROR_NOT_SUPPORTED.
  std::optional<GpmReading> sample(const GpmKey& key, nvmlDevice_t device);

 private:
  struct Slot {
    nvmlGpmSample_t previous{nullptr};  // the newest sample; null before the first
    nvmlGpmSample_t spare{nullptr};     // the one before it, overwritten by the next
    bool seen = true;
  };
  void free_slot(Slot& slot) const;

  const Library& lib_;
  std::map<GpmKey, Slot> slots_;
};

// ---- nvml_instance_metrics.cpp: metrics of each MIG instance of one GPU
// One InstanceMetrics per GPU instance, sorted by id; empty unless MIG mode
// is on. Memory from the instance's first MIG device
// (nvmlDeviceGetMigDeviceHandleByIndex + nvmlDeviceGetMemoryInfo), activity
// from GPM through `gpm` where the GPU supports it.
std::vector<InstanceMetrics> read_instance_metrics(const Library& lib, GpmSampler& gpm, nvmlDevice_t device, int gpu);

// ---- nvml_events.cpp: XID events through one NVML event set
class XidEventSource {
 public:
  explicit XidEventSource(const Library& lib) : lib_(lib) {}
  ~XidEventSource();
  XidEventSource(const XidEventSource&) = delete;
  XidEventSource& operator=(const XidEventSource&) = delete;
  // Creates the set on first use. Waits up to `timeout` for the first event,
  // then returns it with any others already queued; empty on timeout.
  std::vector<XidEvent> wait(std::chrono::milliseconds timeout);

 private:
  void open();

  const Library& lib_;
  bool open_ = false;
  nvmlEventSet_t set_{nullptr};
  std::vector<nvmlDevice_t> devices_;  // registered, by NVML index
};

}  // namespace gpupool::backend::nvml
