// The fake's control functions (fake_nvml_control.h), exported next to NVML's.
#include <algorithm>
#include <cstdio>

#include "fake_mig_rules.h"
#include "fake_nvml_control.h"
#include "fake_state.h"

using namespace fake_nvml;

namespace {

struct Locked {
  State& st = state();
  std::lock_guard<std::mutex> lock{st.mu};
};

void drop_links_to(Gpu& gpu, int remote_gpu) {
  std::erase_if(gpu.nvlinks, [&](const NvLinkEnd& end) { return end.remote_gpu == remote_gpu; });
}

}  // namespace

FAKE_NVML_EXPORT int fakeNvmlReset(const char* gpus_spec) {
  Locked l;
  return l.st.reset(gpus_spec != nullptr ? gpus_spec : "") ? 0 : -1;
}

FAKE_NVML_EXPORT void fakeNvmlFailNext(const char* function_name, int nvml_return, int times) {
  Locked l;
  if (function_name != nullptr) l.st.failures[function_name] = {nvml_return, times};
}

FAKE_NVML_EXPORT int fakeNvmlInjectXid(int gpu_index, unsigned long long xid) {
  Locked l;
  Gpu* gpu = l.st.gpu(gpu_index);
  if (gpu == nullptr) return -1;
  int queued = 0;
  for (auto& set : l.st.event_sets) {
    const auto found = set->registered.find(gpu);
    if (found == set->registered.end() || (found->second & nvmlEventTypeXidCriticalError) == 0) continue;
    nvmlEventData_t data{};
    data.device = handle_of(*gpu);
    data.eventType = nvmlEventTypeXidCriticalError;
    data.eventData = xid;
    data.gpuInstanceId = NVML_INSTANCE_ID_NONE;
    data.computeInstanceId = NVML_INSTANCE_ID_NONE;
    set->queue.push_back(data);
    ++queued;
  }
  l.st.events_changed.notify_all();
  return queued;
}

FAKE_NVML_EXPORT int fakeNvmlSetMigInUse(int gpu_index, int in_use) {
  Locked l;
  Gpu* gpu = l.st.gpu(gpu_index);
  if (gpu == nullptr) return -1;
  gpu->in_use = in_use != 0;
  return 0;
}

FAKE_NVML_EXPORT int fakeNvmlResetGpu(int gpu_index) {
  Locked l;
  Gpu* gpu = l.st.gpu(gpu_index);
  if (gpu == nullptr) return -1;
  return reset_gpu(*gpu);
}

FAKE_NVML_EXPORT int fakeNvmlAddProcess(int gpu_index, unsigned pid, unsigned long long used_bytes, int gpu_instance_id) {
  Locked l;
  Gpu* gpu = l.st.gpu(gpu_index);
  if (gpu == nullptr) return -1;
  if (gpu_instance_id >= 0 && gpu->instance(static_cast<unsigned>(gpu_instance_id)) == nullptr) return -1;
  gpu->processes.push_back({pid, used_bytes, gpu_instance_id});
  return 0;
}

FAKE_NVML_EXPORT int fakeNvmlSetTopology(int gpu_a, int gpu_b, int level) {
  Locked l;
  if (l.st.gpu(gpu_a) == nullptr || l.st.gpu(gpu_b) == nullptr) return -1;
  const auto key = std::minmax(gpu_a, gpu_b);
  l.st.topology[{key.first, key.second}] = level;
  return 0;
}

FAKE_NVML_EXPORT int fakeNvmlSetNvLinks(int gpu_a, int gpu_b, int links) {
  Locked l;
  Gpu* a = l.st.gpu(gpu_a);
  Gpu* b = l.st.gpu(gpu_b);
  if (a == nullptr || b == nullptr || a == b) return -1;
  drop_links_to(*a, gpu_b);
  drop_links_to(*b, gpu_a);
  for (int i = 0; i < links; ++i) {
    a->nvlinks.push_back({b->bus_id(), NVML_NVLINK_DEVICE_TYPE_GPU, gpu_b});
    b->nvlinks.push_back({a->bus_id(), NVML_NVLINK_DEVICE_TYPE_GPU, gpu_a});
  }
  return 0;
}

FAKE_NVML_EXPORT int fakeNvmlSetNvSwitchLinks(int gpu_index, int links) {
  Locked l;
  Gpu* gpu = l.st.gpu(gpu_index);
  if (gpu == nullptr) return -1;
  drop_links_to(*gpu, -1);
  for (int i = 0; i < links; ++i) {
    char bus[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
    std::snprintf(bus, sizeof bus, "00000000:%02X:00.0", 0xC0 + i % 4);  // four NVSwitches
    gpu->nvlinks.push_back({bus, NVML_NVLINK_DEVICE_TYPE_SWITCH, -1});
  }
  return 0;
}

FAKE_NVML_EXPORT int fakeNvmlSetMetrics(int gpu_index, int temperature_c, unsigned power_mw, unsigned utilization_percent,
                                        unsigned long long ecc_corrected, unsigned long long ecc_uncorrected) {
  Locked l;
  Gpu* gpu = l.st.gpu(gpu_index);
  if (gpu == nullptr) return -1;
  gpu->temperature_c = temperature_c;
  gpu->power_mw = power_mw;
  gpu->utilization = utilization_percent;
  gpu->ecc_corrected = ecc_corrected;
  gpu->ecc_uncorrected = ecc_uncorrected;
  return 0;
}

FAKE_NVML_EXPORT int fakeNvmlSetTelemetry(int gpu_index, unsigned long long energy_mj, unsigned sm_clock_mhz,
                                          unsigned memory_clock_mhz, unsigned long long clocks_event_reasons) {
  Locked l;
  Gpu* gpu = l.st.gpu(gpu_index);
  if (gpu == nullptr) return -1;
  gpu->energy_mj = energy_mj;
  gpu->sm_clock_mhz = sm_clock_mhz;
  gpu->memory_clock_mhz = memory_clock_mhz;
  gpu->clocks_event_reasons = clocks_event_reasons;
  return 0;
}

FAKE_NVML_EXPORT int fakeNvmlSetReservedMemory(int gpu_index, unsigned long long bytes) {
  Locked l;
  Gpu* gpu = l.st.gpu(gpu_index);
  if (gpu == nullptr) return -1;
  gpu->reserved_bytes = bytes;
  return 0;
}

FAKE_NVML_EXPORT int fakeNvmlSetInstanceActivity(int gpu_index, int gpu_instance_id, unsigned graphics_percent,
                                                 unsigned sm_percent, unsigned dram_percent) {
  Locked l;
  Gpu* gpu = l.st.gpu(gpu_index);
  if (gpu == nullptr || gpu_instance_id < 0 || gpu->instance(static_cast<unsigned>(gpu_instance_id)) == nullptr ||
      graphics_percent > 100 || sm_percent > 100 || dram_percent > 100) {
    return -1;
  }
  GpmActivity& activity = gpu->gpm[static_cast<unsigned>(gpu_instance_id)];
  activity.graphics_percent = graphics_percent;
  activity.sm_percent = sm_percent;
  activity.dram_percent = dram_percent;
  return 0;
}

FAKE_NVML_EXPORT void fakeNvmlAdvanceClock(unsigned long long ms) {
  Locked l;
  l.st.clock_ms += ms;
  for (auto& gpu : l.st.gpus) {
    for (auto& [id, activity] : gpu->gpm) {
      activity.graphics += ms * activity.graphics_percent;
      activity.sm += ms * activity.sm_percent;
      activity.dram += ms * activity.dram_percent;
    }
  }
}

FAKE_NVML_EXPORT int fakeNvmlGpmSamplesHeld(void) {
  Locked l;
  return static_cast<int>(l.st.gpm_samples.size());
}

FAKE_NVML_EXPORT int fakeNvmlCallCount(const char* function_name) {
  Locked l;
  if (function_name == nullptr) return 0;
  const auto found = l.st.calls.find(function_name);
  return found == l.st.calls.end() ? 0 : found->second;
}

FAKE_NVML_EXPORT int fakeNvmlInitCount(void) {
  Locked l;
  return l.st.init_count;
}
