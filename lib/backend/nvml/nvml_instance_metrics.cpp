// The metrics of each MIG instance of one GPU: memory from its MIG device,
// activity from GPM (nvml_gpm.cpp).
#include <map>

#include "nvml_parts.h"

namespace gpupool::backend::nvml {
namespace {

// The memory of the GPU instance `mig` belongs to, read on that MIG device
// (the compute instances of a GPU instance share its memory).
void read_memory(const Library& lib, const MigDevice& mig, int gpu, InstanceMetrics& out) {
  nvmlMemory_t memory{};
  const nvmlReturn_t ret = lib.api().memory_info(mig.handle, &memory);
  if (ret == NVML_ERROR_NOT_SUPPORTED) return;
  lib.check(ret, "nvmlDeviceGetMemoryInfo", gpu, "GPU instance " + std::to_string(mig.gpu_instance_id));
  out.memory_used_mib = static_cast<std::int64_t>(memory.used >> 20);
  out.memory_free_mib = static_cast<std::int64_t>(memory.free >> 20);
  out.memory_total_mib = static_cast<std::int64_t>(memory.total >> 20);
}

void apply(const GpmReading& reading, InstanceMetrics& out) {
  // GRAPHICS_UTIL is the time share NVML's utilization.gpu reports for a
  // whole GPU; SM_UTIL (the share of busy SMs) stands in where it is missing.
  out.utilization_percent = reading.graphics_util ? reading.graphics_util : reading.sm_util;
  if (reading.graphics_util) out.graphics_engine_active = *reading.graphics_util / 100.0;
  if (reading.dram_bw_util) out.dram_active = *reading.dram_bw_util / 100.0;
}

}  // namespace

std::vector<InstanceMetrics> read_instance_metrics(const Library& lib, GpmSampler& gpm, nvmlDevice_t device, int gpu) {
  if (!can_read_mig(lib.api()) || !mig_enabled(lib, device, gpu)) return {};
  const std::vector<MigInstance> instances = read_mig_instances(lib, device, gpu, nullptr);
  std::map<int, InstanceMetrics> by_id;
  for (const MigInstance& instance : instances) by_id[instance.gpu_instance_id].gpu_instance_id = instance.gpu_instance_id;

  for (const MigDevice& mig : mig_devices(lib, device, gpu)) {
    const auto found = by_id.find(mig.gpu_instance_id);
    if (found != by_id.end() && !found->second.memory_total_mib) read_memory(lib, mig, gpu, found->second);
  }

  if (gpm.supported(device, gpu)) {
    for (const MigInstance& instance : instances) {
      const GpmKey key{gpu, instance.gpu_instance_id, instance.profile_id, instance.placement_start, instance.uuid};
      if (auto reading = gpm.sample(key, device)) apply(*reading, by_id[instance.gpu_instance_id]);
    }
  }

  std::vector<InstanceMetrics> out;
  out.reserve(by_id.size());
  for (auto& [id, metrics] : by_id) out.push_back(std::move(metrics));
  return out;
}

}  // namespace gpupool::backend::nvml
