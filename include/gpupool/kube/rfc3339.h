// RFC 3339 timestamps, as metav1.Time serializes them ("2024-05-01T12:00:00Z",
// with optional fractional seconds and a numeric offset).
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace gpupool::kube {

std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text);

}  // namespace gpupool::kube
