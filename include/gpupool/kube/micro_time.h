// Formatting of metav1.MicroTime and metav1.Time: RFC 3339 in UTC, with
// exactly six fractional digits for MicroTime ("2024-05-01T12:00:00.123456Z")
// and none for Time ("2024-05-01T12:00:00Z"), as the API server writes them.
// Parse either with parse_rfc3339 (gpupool/common/rfc3339.h).
#pragma once

#include <chrono>
#include <string>

namespace gpupool::kube {

// Truncates to microseconds (never rounds up into the next second).
std::string format_micro_time(std::chrono::system_clock::time_point t);
// Truncates to seconds.
std::string format_time(std::chrono::system_clock::time_point t);

}  // namespace gpupool::kube
