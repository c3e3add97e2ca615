// JSON text pieces for the manifests of lib/monitoring (internal).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gpupool::monitoring::detail {

// `s` as a JSON string literal, quotes included.
std::string quoted(std::string_view s);
// {"k":"v",...} in key order.
std::string string_map(const std::map<std::string, std::string>& m);
// ["a","b"]
std::string string_array(const std::vector<std::string>& items);
// `s` as a PromQL double-quoted string literal.
std::string promql_string(std::string_view s);
// `s` with RE2's special characters escaped, so that it matches itself only.
std::string regex_literal(std::string_view s);
// FNV-1a, 64 bits: a stable short hash for names.
std::uint64_t fnv1a(std::string_view s);
// The low 32 bits of `v` as 8 lower-case hex digits.
std::string hex8(std::uint64_t v);

}  // namespace gpupool::monitoring::detail
