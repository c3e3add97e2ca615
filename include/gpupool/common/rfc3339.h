// RFC 3339 timestamps, as metav1.Time serializes them and the apiserver
// accepts them for format: date-time. Shared by the Kubernetes client and the
// API types ("2024-05-01T12:00:00Z",
// with optional fractional seconds and a numeric offset), exactly as Go's
// time.Parse(time.RFC3339, ...) reads them: 'T' and 'Z' upper case, seconds
// up to 59.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

namespace gpupool {

// Microseconds (metav1.MicroTime's precision; finer digits are dropped) span
// every year RFC 3339 can write, 0000 to 9999, without overflow.
using Rfc3339Time = std::chrono::sys_time<std::chrono::microseconds>;
std::optional<Rfc3339Time> parse_rfc3339(std::string_view text);

// `t` as a system_clock time, clamped to years 1900..2200 so that arithmetic
// with "now" cannot overflow whatever a peer sent.
std::chrono::system_clock::time_point to_system_clock(Rfc3339Time t);

}  // namespace gpupool
