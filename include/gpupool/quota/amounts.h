// Quota amounts: one integer per resource name, in millionths of the
// resource's unit (one device of nvidia.com/gpu, nvidia.com/mig-1g.10gb,
// amd.com/gpu, ...; one GPU's worth of gpupool.io/gpu). Whole devices and the
// fractions of a GPU a partition costs then add up in integers. Pure.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "gpupool/api/resource_names.h"

namespace gpupool::quota {

using Amounts = std::map<std::string, std::int64_t>;  // resource name -> micro-units

inline constexpr std::int64_t kMicro = 1'000'000;  // micro-units in one unit

// The normalised GPU unit (gpupool.io/gpu): each device costs its share of
// one GPU (gpu_units.h says how); TenantQuotas may ask for it like any resource.
inline constexpr std::string_view kGpuUnit = api::kGpuUnitResource;

// The smallest step a grant of `resource` moves in: a whole device, or a
// thousandth of a GPU for gpupool.io/gpu (the precision its quantities allow).
std::int64_t grain(std::string_view resource);

// An amount as people write it: 6000000 -> "6", 2500000 -> "2.5",
// 428571 -> "0.428571".
std::string format_amount(std::int64_t micro);

// a[r] + b[r] for every r (missing counts as 0); entries that end at 0 are dropped.
Amounts add(const Amounts& a, const Amounts& b);
// a[r] - b[r] for every r in a where that is above 0 (missing in b counts
// as 0): what a quota uses above its grant (status.borrowed).
Amounts above(const Amounts& a, const Amounts& b);
// Whether a[r] <= b[r] for every r in a (missing in b counts as 0).
bool fits_within(const Amounts& a, const Amounts& b);

}  // namespace gpupool::quota
