// A short, stable hash of a name, for making long Kubernetes names fit their
// limits without losing uniqueness (FNV-1a: the same in every build and run,
// which std::hash is not).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gpupool::common {

// `digits` (1..16) lowercase hex digits of the 64-bit FNV-1a hash of `text`.
std::string short_hash(std::string_view text, std::size_t digits = 10);

}  // namespace gpupool::common
