// What one device of a GPU resource costs in the normalised unit
// gpupool.io/gpu (quota/amounts.h), so a tenant holding "4 GPUs' worth" can
// spend it on any mix of whole GPUs, MIG partitions and time-sliced replicas.
// Pure.
//
//   whole GPU                      1
//   MIG instance, basis Compute    its compute slices / the GPU's (3g.40gb on A100: 3/7)
//   MIG instance, basis Memory     its memory / the GPU's memory, both as the GPU
//                                  reports them (3g.40gb on A100 80GB: 40192/81920)
//   time-sliced or MPS replica     the device's cost / replicas
//   AMD logical GPU (partition)    1 / the GPU's logical GPUs (CPX on MI300X: 1/8)
//
// Costs are in millionths of a GPU, rounded to the nearest millionth, so
// the seven 1g.10gb of an A100 cost 7 x 142857 = 0.999999 GPU: a tenant with
// 1 GPU's worth fits all seven. A resource name devices of different shares
// advertise in one pool (two models in a pool) costs the highest of them.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gpupool/gpu/catalog.h"
#include "gpupool/quota/amounts.h"

namespace gpupool::quota {

enum class ChargeBasis { compute, memory };

// One device a device plugin advertises, as a share of one physical GPU.
struct DeviceShare {
  std::int32_t compute_slices = 1;      // of the GPU's gpu_compute_slices (a whole GPU: 1 of 1)
  std::int32_t gpu_compute_slices = 1;
  std::int64_t memory_mib = 0;          // as reported; 0 when unknown (then compute counts)
  std::int64_t gpu_memory_mib = 0;
  std::int32_t replicas = 1;            // time-slicing or MPS replicas of the device (>= 1)
};

// Millionths of a GPU one device costs.
std::int64_t device_cost(const DeviceShare& share, ChargeBasis basis);

// A MIG instance of `profile` on `model`, with the catalog's (nominal) memory sizes.
DeviceShare profile_share(const gpu::GpuModel& model, const gpu::MigProfile& profile);

// resource name -> millionths of a GPU per device, over the devices of a pool.
Amounts cost_table(const std::vector<std::pair<std::string, DeviceShare>>& devices, ChargeBasis basis);

// What `requests` (resource -> micro-units, so 2 devices = 2000000) cost in
// gpupool.io/gpu by `costs`; resources without a cost add nothing.
std::int64_t gpu_units_of(const Amounts& requests, const Amounts& costs);

}  // namespace gpupool::quota
