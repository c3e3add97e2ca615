// How GPU model names are compared and shown.
#pragma once

#include <string>
#include <string_view>

#include "gpupool/gpu/catalog.h"

namespace gpupool::gpu {

// The lookup key of a model id or reported name: lowercase, '-' and '_' read
// as spaces, runs of spaces collapsed, leading vendor/brand words ("NVIDIA",
// "AMD", "Tesla", "Instinct") dropped. "NVIDIA-A100-SXM4-80GB",
// "nvidia a100-sxm4-80gb" and "A100 SXM4 80GB" share one key, as do
// "Tesla T4" and "T4".
std::string name_key(std::string_view name);

}  // namespace gpupool::gpu
