// What one device of each resource in a pool's capacity costs in
// gpupool.io/gpu (quota/gpu_units.h), from the pool's spec and the catalog.
// Pure.
// - nvidia.com/mig-<profile>[.shared]: the profile's share of its GPU (the
//   largest among catalog models having the profile), by the charge basis;
// - nvidia.com/gpu[.shared] with MIG off or mixed: one GPU;
// - time-slicing or MPS replicas divide the cost (MPS: nvidia.com/gpu only,
//   as the device plugin replicates only it);
// - where a device's share is not known from the spec alone (the single MIG
//   strategy, whose nvidia.com/gpu devices are MIG instances; AMD compute
//   partitions) it counts as a whole GPU: more than it is, never less, so
//   grants stay within the hardware.
#pragma once

#include "gpupool/api/gpupool.h"
#include "gpupool/gpu/catalog.h"
#include "gpupool/quota/gpu_units.h"

namespace gpupool::quota_controller {

quota::Amounts pool_unit_costs(const api::GPUPool& pool, const quota::Amounts& capacity, const gpu::Catalog& catalog,
                               quota::ChargeBasis basis);

}  // namespace gpupool::quota_controller
