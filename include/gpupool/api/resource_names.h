// Resource names of the gpupool.io API itself, as opposed to the device
// plugins' names (nvidia.com/gpu, nvidia.com/mig-<profile>, amd.com/gpu).
// docs/api.md, "Resource names".
#pragma once

#include <string_view>

namespace gpupool::api {

// The normalised GPU unit, "GPUs' worth": a whole GPU counts 1, a MIG
// partition its share of its GPU (by compute slices or memory: GPUPolicy
// quota.chargeBasis), a time-sliced replica 1/replicas. Quota maps may use it
// next to device names; unlike them its quantities may be fractional, to the
// thousandth ("2.5", "500m").
inline constexpr std::string_view kGpuUnitResource = "gpupool.io/gpu";

}  // namespace gpupool::api
