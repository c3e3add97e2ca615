// What one device of each resource in a pool's capacity costs in
// gpupool.io/gpu (quota/gpu_units.h), from the pool's spec and the catalog.
// Pure.
// - nvidia.com/mig-<profile>[.shared]: the profile's share of its GPU, by
//   the charge basis: by memory, as the members' GPUs report their instances
//   (`reported`; sizes move between drivers), else by the catalog's nominal
//   sizes; the largest share where they differ;
// - nvidia.com/gpu[.shared] with MIG off or mixed: one GPU;
// - time-slicing or MPS replicas divide the cost (MPS: nvidia.com/gpu only,
//   as the device plugin replicates only it);
// - where a device's share is not known from the spec alone (the single MIG
//   strategy, whose nvidia.com/gpu devices are MIG instances; AMD compute
//   partitions) it counts as a whole GPU: more than it is, never less, so
//   grants stay within the hardware.
#pragma once

#include <string>
#include <vector>

#include "gpupool/api/gpupool.h"
#include "gpupool/gpu/catalog.h"
#include "gpupool/quota/gpu_units.h"

namespace gpupool::quota_controller {

// One MIG instance a member reports: its profile and memory, its GPU's memory.
struct ReportedInstance {
  std::string profile;
  std::int64_t memory_mib = 0;
  std::int64_t gpu_memory_mib = 0;
};

quota::Amounts pool_unit_costs(const api::GPUPool& pool, const quota::Amounts& capacity, const gpu::Catalog& catalog,
                               quota::ChargeBasis basis, const std::vector<ReportedInstance>& reported = {});

}  // namespace gpupool::quota_controller
