#include "gpupool/quota/gpu_units.h"

#include <algorithm>

namespace gpupool::quota {
namespace {

// round(kMicro * num / den) for num, den > 0 (num is at most a GPU's memory
// in MiB, so num * kMicro stays far inside int64).
std::int64_t micro_ratio(std::int64_t num, std::int64_t den) {
  if (den <= 0 || num <= 0) return 0;
  return (num * kMicro + den / 2) / den;
}

}  // namespace

std::int64_t device_cost(const DeviceShare& s, ChargeBasis basis) {
  const std::int64_t replicas = std::max<std::int32_t>(1, s.replicas);
  if (basis == ChargeBasis::memory && s.memory_mib > 0 && s.gpu_memory_mib > 0) {
    return micro_ratio(s.memory_mib, s.gpu_memory_mib * replicas);
  }
  return micro_ratio(s.compute_slices, static_cast<std::int64_t>(std::max<std::int32_t>(1, s.gpu_compute_slices)) * replicas);
}

DeviceShare profile_share(const gpu::GpuModel& model, const gpu::MigProfile& profile) {
  DeviceShare s;
  s.compute_slices = profile.compute_slices;
  s.gpu_compute_slices = model.mig ? model.mig->compute_slices : 1;
  s.memory_mib = profile.memory_mib;
  s.gpu_memory_mib = model.memory_mib;
  return s;
}

Amounts cost_table(const std::vector<std::pair<std::string, DeviceShare>>& devices, ChargeBasis basis) {
  Amounts out;
  for (const auto& [resource, share] : devices) {
    const std::int64_t cost = device_cost(share, basis);
    auto [it, fresh] = out.emplace(resource, cost);
    if (!fresh) it->second = std::max(it->second, cost);
  }
  return out;
}

std::int64_t gpu_units_of(const Amounts& requests, const Amounts& costs) {
  std::int64_t total = 0;
  for (const auto& [resource, micro] : requests) {
    auto it = costs.find(resource);
    if (it == costs.end()) continue;
    // micro * cost / kMicro without the product overflowing for a million devices.
    total += (micro / kMicro) * it->second + (micro % kMicro) * it->second / kMicro;
  }
  return total;
}

}  // namespace gpupool::quota
