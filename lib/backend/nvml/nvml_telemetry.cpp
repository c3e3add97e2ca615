// Metrics and processes of one GPU. A reading the GPU does not support
// (NVML_ERROR_NOT_SUPPORTED, or a function the library lacks) is left empty.
// The metrics of its MIG instances are nvml_instance_metrics.cpp's.
#include "nvml_parts.h"

namespace gpupool::backend::nvml {
namespace {

// True on success, false when not supported; throws on any other failure.
bool supported(const Library& lib, nvmlReturn_t ret, const char* function, int gpu) {
  if (ret == NVML_ERROR_NOT_SUPPORTED) return false;
  lib.check(ret, function, gpu);
  return true;
}

std::optional<double> temperature(const Library& lib, nvmlDevice_t device, int gpu) {
  const Api& api = lib.api();
  if (api.temperature_v != nullptr) {
    nvmlTemperature_v1_t t{};
    t.version = nvmlTemperature_v1;
    t.sensorType = NVML_TEMPERATURE_GPU;
    const nvmlReturn_t ret = api.temperature_v(device, &t);
    if (ret != NVML_ERROR_ARGUMENT_VERSION_MISMATCH || api.temperature == nullptr) {
      if (supported(lib, ret, "nvmlDeviceGetTemperatureV", gpu)) return t.temperature;
      return std::nullopt;
    }
  }
  if (api.temperature == nullptr) return std::nullopt;
  unsigned celsius = 0;
  if (supported(lib, api.temperature(device, NVML_TEMPERATURE_GPU, &celsius), "nvmlDeviceGetTemperature", gpu)) {
    return celsius;
  }
  return std::nullopt;
}

std::optional<std::int64_t> ecc_total(const Library& lib, nvmlDevice_t device, int gpu, int type) {
  if (lib.api().total_ecc_errors == nullptr) return std::nullopt;
  unsigned long long count = 0;
  if (supported(lib, lib.api().total_ecc_errors(device, type, NVML_VOLATILE_ECC, &count), "nvmlDeviceGetTotalEccErrors",
                gpu)) {
    return static_cast<std::int64_t>(count);
  }
  return std::nullopt;
}

std::optional<std::int64_t> clock_mhz(const Library& lib, nvmlDevice_t device, int gpu, int type) {
  if (lib.api().clock_info == nullptr) return std::nullopt;
  unsigned mhz = 0;
  if (supported(lib, lib.api().clock_info(device, type, &mhz), "nvmlDeviceGetClockInfo", gpu)) return mhz;
  return std::nullopt;
}

std::optional<std::int64_t> energy_millijoules(const Library& lib, nvmlDevice_t device, int gpu) {
  if (lib.api().total_energy == nullptr) return std::nullopt;
  unsigned long long millijoules = 0;
  if (supported(lib, lib.api().total_energy(device, &millijoules), "nvmlDeviceGetTotalEnergyConsumption", gpu)) {
    return static_cast<std::int64_t>(millijoules);
  }
  return std::nullopt;
}

void read_clock_event_reasons(const Library& lib, nvmlDevice_t device, int gpu, GpuMetrics& m) {
  if (lib.api().clocks_event_reasons == nullptr) return;
  unsigned long long mask = 0;
  if (supported(lib, lib.api().clocks_event_reasons(device, &mask), "nvmlDeviceGetCurrentClocksEventReasons", gpu)) {
    m.clock_event_reasons_mask = mask;
    m.clock_event_reasons = clock_event_reason_names(mask);
  }
}

// Memory as nvidia-smi and dcgm-exporter's FB_USED report it: through
// nvmlDeviceGetMemoryInfo_v2 where the library has it, whose `used` leaves
// out what the driver reserves; v1 counts that as used (616 MiB of an idle
// H200 on R580, read on a real one), so it is the fallback where v2 is
// missing or refuses the struct.
void read_memory(const Library& lib, nvmlDevice_t device, int gpu, GpuMetrics& m) {
  const auto& api = lib.api();
  auto keep = [&m](unsigned long long total, unsigned long long used, unsigned long long free) {
    m.memory_used_mib = static_cast<std::int64_t>(used >> 20);
    m.memory_free_mib = static_cast<std::int64_t>(free >> 20);
    m.memory_total_mib = static_cast<std::int64_t>(total >> 20);
  };
  if (api.memory_info_v2 != nullptr) {
    nvmlMemory_v2_t v2{};
    v2.version = nvmlMemory_v2;
    const nvmlReturn_t ret = api.memory_info_v2(device, &v2);
    if (ret == NVML_SUCCESS) return keep(v2.total, v2.used, v2.free);
    if (ret != NVML_ERROR_NOT_SUPPORTED && ret != NVML_ERROR_ARGUMENT_VERSION_MISMATCH &&
        ret != NVML_ERROR_FUNCTION_NOT_FOUND) {
      lib.check(ret, "nvmlDeviceGetMemoryInfo_v2", gpu);
    }
  }
  nvmlMemory_t memory{};
  lib.check(api.memory_info(device, &memory), "nvmlDeviceGetMemoryInfo", gpu);
  keep(memory.total, memory.used, memory.free);
}

}  // namespace

GpuMetrics read_metrics(const Library& lib, nvmlDevice_t device, int gpu) {
  const Api& api = lib.api();
  GpuMetrics m;
  m.index = gpu;
  m.temperature_celsius = temperature(lib, device, gpu);
  if (unsigned milliwatts = 0;
      api.power_usage != nullptr && supported(lib, api.power_usage(device, &milliwatts), "nvmlDeviceGetPowerUsage", gpu)) {
    m.power_watts = milliwatts / 1000.0;
  }
  // NVML answers NVML_ERROR_NOT_SUPPORTED here for a GPU in MIG mode.
  if (nvmlUtilization_t u{}; api.utilization != nullptr &&
                             supported(lib, api.utilization(device, &u), "nvmlDeviceGetUtilizationRates", gpu)) {
    m.utilization_percent = u.gpu;
  }
  read_memory(lib, device, gpu, m);
  m.energy_millijoules = energy_millijoules(lib, device, gpu);
  m.sm_clock_mhz = clock_mhz(lib, device, gpu, NVML_CLOCK_SM);
  m.memory_clock_mhz = clock_mhz(lib, device, gpu, NVML_CLOCK_MEM);
  read_clock_event_reasons(lib, device, gpu, m);
  m.ecc_corrected_total = ecc_total(lib, device, gpu, NVML_MEMORY_ERROR_TYPE_CORRECTED);
  m.ecc_uncorrected_total = ecc_total(lib, device, gpu, NVML_MEMORY_ERROR_TYPE_UNCORRECTED);
  return m;
}

std::vector<GpuProcess> read_processes(const Library& lib, nvmlDevice_t device, int gpu) {
  const Api& api = lib.api();
  if (api.compute_processes == nullptr) return {};
  // The list may grow between calls: NVML says how much room it needs.
  std::vector<nvmlProcessInfo_t> infos(16);
  unsigned count = 0;
  for (int attempt = 0;; ++attempt) {
    count = static_cast<unsigned>(infos.size());
    const nvmlReturn_t ret = api.compute_processes(device, &count, infos.data());
    if (ret == NVML_ERROR_INSUFFICIENT_SIZE && attempt < 4) {
      infos.resize(static_cast<std::size_t>(count) + 16);
      continue;
    }
    if (!supported(lib, ret, "nvmlDeviceGetComputeRunningProcesses", gpu)) return {};
    break;
  }
  std::vector<GpuProcess> processes;
  for (unsigned i = 0; i < count && i < infos.size(); ++i) {
    const nvmlProcessInfo_t& info = infos[i];
    GpuProcess p;
    p.gpu_index = gpu;
    // In MIG mode the whole GPU's handle lists every instance's processes (to a
    // privileged caller, which the agent is), each with its GPU instance id.
    p.gpu_instance_id = info.gpuInstanceId == NVML_INSTANCE_ID_NONE ? -1 : static_cast<int>(info.gpuInstanceId);
    p.pid = info.pid;
    p.used_memory_mib =
        info.usedGpuMemory == NVML_VALUE_NOT_AVAILABLE_ULL ? 0 : static_cast<std::int64_t>(info.usedGpuMemory >> 20);
    processes.push_back(p);
  }
  return processes;
}

}  // namespace gpupool::backend::nvml
