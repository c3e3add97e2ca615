// Private to lib/api: go-yaml v2's resolution of one scalar (resolve.go).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace gpupool::api::detail {

struct YamlNull {};
// The resolved value: null, bool, int64, uint64 (above int64), double, string.
using YamlScalar = std::variant<YamlNull, bool, std::int64_t, std::uint64_t, double, std::string>;

// How go-yaml resolves the untagged plain scalar `text`.
YamlScalar yaml_resolve_plain(const std::string& text);

// Go's strconv.ParseInt(s, 0, 64) then ParseUint(s, 0, 64); nullopt if neither.
std::optional<std::variant<std::int64_t, std::uint64_t>> yaml_parse_go_int(const std::string& s);
// Go's strconv.ParseFloat(s, 64) for finite results and infinities; nullopt on
// a syntax or range error.
std::optional<double> yaml_parse_go_float(const std::string& s);

}  // namespace gpupool::api::detail
