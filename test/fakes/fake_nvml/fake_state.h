// The fake NVML's model of a node: GPUs from the catalog, their MIG
// instances, processes, links and event sets, behind one mutex; and Call, the
// preamble of every exported NVML function (lock, count, injected failure,
// nvmlInit check). Handles given out are addresses of these objects and are
// checked against them on the way back in.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/gpu/catalog.h"
#include "nvml_abi.h"

#define FAKE_NVML_EXPORT extern "C" __attribute__((visibility("default")))

namespace fake_nvml {

struct Gpu;
struct GpuInstance;

struct ComputeInstance {
  GpuInstance* parent = nullptr;
  unsigned id = 0;
  unsigned profile_id = 0;  // == its NVML_COMPUTE_INSTANCE_PROFILE_* here
  unsigned start = 0, size = 0;  // compute slices within the GPU instance
  std::string uuid;              // of its MIG device
  char mig_device = 0;           // its address is the MIG device's nvmlDevice_t
};

struct GpuInstance {
  Gpu* parent = nullptr;
  unsigned id = 0;
  const gpupool::gpu::MigProfile* profile = nullptr;
  unsigned start = 0, size = 0;  // memory slices
  std::vector<std::unique_ptr<ComputeInstance>> compute;
};

struct Process {
  unsigned pid = 0;
  unsigned long long used_bytes = 0;
  int gpu_instance_id = -1;
};

struct NvLinkEnd {
  std::string remote_bus_id;
  int remote_type = NVML_NVLINK_DEVICE_TYPE_GPU;
  int remote_gpu = -1;  // for GPU ends
};

// GPM activity of one GPU instance: the rates fakeNvmlSetInstanceActivity
// sets and what they add up to as the fake's clock advances (percent x ms).
struct GpmActivity {
  unsigned graphics_percent = 0, sm_percent = 0, dram_percent = 0;
  unsigned long long graphics = 0, sm = 0, dram = 0;
};

// A GPM sample buffer (nvmlGpmSampleAlloc); filled by nvmlGpmMigSampleGet.
struct GpmSample {
  bool filled = false;
  const Gpu* gpu = nullptr;
  unsigned gpu_instance_id = 0;
  unsigned long long time_ms = 0;  // the fake's clock when taken
  GpmActivity counters;
};

struct Gpu {
  int index = 0;
  const gpupool::gpu::GpuModel* model = nullptr;
  std::string uuid;
  unsigned bus = 0;
  unsigned mig_current = NVML_DEVICE_MIG_DISABLE, mig_pending = NVML_DEVICE_MIG_DISABLE;
  bool in_use = false;
  std::vector<std::unique_ptr<GpuInstance>> instances;
  std::vector<Process> processes;
  std::vector<NvLinkEnd> nvlinks;  // link number -> far end
  int temperature_c = 30;
  unsigned power_mw = 60000;
  unsigned utilization = 0;
  unsigned long long ecc_corrected = 0, ecc_uncorrected = 0;
  unsigned long long energy_mj = 0;
  unsigned long long reserved_bytes = 0;  // what the driver keeps for itself (fakeNvmlSetReservedMemory)
  unsigned sm_clock_mhz = 1410, memory_clock_mhz = 1593;
  unsigned long long clocks_event_reasons = nvmlClocksEventReasonGpuIdle;
  std::map<unsigned, GpmActivity> gpm;  // by GPU instance id

  bool mig_enabled() const { return mig_current == NVML_DEVICE_MIG_ENABLE; }
  bool gpm_supported() const;         // Hopper and newer
  std::string bus_id() const;         // "00000000:07:00.0"
  nvmlPciInfo_t pci() const;
  GpuInstance* instance(unsigned id);
};

struct EventSet {
  std::map<const Gpu*, unsigned long long> registered;  // event types per GPU
  std::deque<nvmlEventData_t> queue;
};

struct State {
  std::mutex mu;
  std::condition_variable events_changed;
  int init_count = 0;
  std::vector<std::unique_ptr<Gpu>> gpus;
  std::map<std::pair<int, int>, int> topology;  // (a < b) -> NVML_TOPOLOGY_*
  std::vector<std::unique_ptr<EventSet>> event_sets;
  struct Failure {
    nvmlReturn_t ret = NVML_SUCCESS;
    int times = 0;
  };
  std::map<std::string, Failure> failures;
  std::map<std::string, int> calls;
  unsigned long long mig_serial = 0;  // MIG device UUIDs are new on every creation
  unsigned long long clock_ms = 0;    // fakeNvmlAdvanceClock; GPM samples read it
  std::vector<std::unique_ptr<GpmSample>> gpm_samples;

  // Replaces everything with the GPUs of `spec` (fakeNvmlReset); false if bad.
  bool reset(const std::string& spec);
  Gpu* gpu(int index);
  // Handle look-ups: nullptr for anything not handed out (or gone).
  Gpu* gpu(nvmlDevice_t device);
  ComputeInstance* mig_device(nvmlDevice_t device);
  GpuInstance* gpu_instance(nvmlGpuInstance_t instance);
  ComputeInstance* compute_instance(nvmlComputeInstance_t instance);
  EventSet* event_set(nvmlEventSet_t set);
  GpmSample* gpm_sample(nvmlGpmSample_t sample);
};

State& state();

// Handles of fake objects.
nvmlDevice_t handle_of(Gpu& gpu);
nvmlDevice_t mig_handle_of(ComputeInstance& ci);
nvmlGpuInstance_t handle_of(GpuInstance& gi);
nvmlComputeInstance_t handle_of(ComputeInstance& ci);
nvmlEventSet_t handle_of(EventSet& set);
nvmlGpmSample_t handle_of(GpmSample& sample);

// Starts every exported NVML function: holds the state's lock for the call,
// counts it, and says whether it must return at once (an injected failure,
// or NVML not initialised when `needs_init`).
class Call {
 public:
  explicit Call(const char* symbol, bool needs_init = true);
  std::optional<nvmlReturn_t> early;
  State& st;
  std::unique_lock<std::mutex> lock;
};

// Copies `text` into NVML's (buffer, length) with the real library's rule:
// NVML_ERROR_INSUFFICIENT_SIZE when it does not fit with its NUL.
nvmlReturn_t copy_out(const std::string& text, char* buffer, unsigned length);

}  // namespace fake_nvml
