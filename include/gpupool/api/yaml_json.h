// YAML to JSON as kubectl converts a manifest before sending it.
//
// kubectl reads YAML with sigs.k8s.io/yaml, which decodes with go-yaml v2
// (YAML 1.1 resolution of plain scalars) and marshals the result with
// encoding/json. yaml_to_json reproduces that result:
//
//   plain scalars     ~ null Null NULL and the empty scalar      -> null
//                     y Y yes Yes YES true True TRUE on On ON      -> true
//                     n N no No NO false False FALSE off Off OFF   -> false
//                     integers: [-+]digits, 0x.. hex, 0o.. and leading-0
//                       octal, 0b.. binary; underscores are ignored
//                       ("1_000" is 1000)                           -> integer
//                     floats: 1.5, 1e3, .5, 08 (not octal, so a float)
//                                                                   -> number
//                     anything else (including timestamps such as
//                       2024-01-01, which go-yaml leaves as strings) -> string
//   quoted and block scalars ("x", 'x', |, >)                      -> string
//   explicit tags     !!str !!int !!float !!bool !!null are honoured; a value
//                     that does not fit its tag is an error, as in go-yaml.
//                     Other tags (!foo, !!timestamp, !!binary) keep the text
//                     as a string, as go-yaml does (except that !!binary is
//                     not base64-decoded here).
//   map keys          resolved like values, then stringified as
//                     sigs.k8s.io/yaml does (1 -> "1", true -> "true", so the
//                     key `on:` becomes "true"); a null, list or map key is an
//                     error; a key that appears twice is an error.
//   merge keys        `<<: *base` (or a list of maps) is expanded; keys
//                     written in the map itself win over merged ones.
//
// Floats are emitted as encoding/json would print them and kube-apiserver read
// them back: a float with an integral value that fits int64 (3.0, 1e3)
// becomes a JSON integer; others stay doubles. .inf and .nan cannot be
// represented in JSON, so kubectl fails on them, and so does this.
//
// Aliases are expanded; a self-referencing alias or nesting deeper than
// kMaxYamlDepth is an error rather than a crash.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include <rapidjson/document.h>
#include <yaml-cpp/yaml.h>

namespace gpupool::api {

inline constexpr std::size_t kMaxYamlDepth = 512;

// A YAML value that has no JSON form. line/column are 1-based, from the node
// yaml-cpp reports (0 when it gave none).
class YamlJsonError : public std::runtime_error {
 public:
  YamlJsonError(const std::string& message, int line, int column)
      : std::runtime_error(message), line_(line), column_(column) {}
  int line() const { return line_; }
  int column() const { return column_; }

 private:
  int line_;
  int column_;
};

// Throws YamlJsonError.
rapidjson::Value yaml_to_json(const YAML::Node& node, rapidjson::Document::AllocatorType& allocator);

// How one plain (unquoted, untagged) scalar resolves, for callers and tests.
enum class YamlScalarKind { Null, Bool, Int, Float, String };
YamlScalarKind resolve_plain_scalar(const std::string& text);

}  // namespace gpupool::api

namespace gpupool::api {

// A float as Go's strconv.FormatFloat(v, 'g', -1, bits) and fmt's %v print it
// ("64", "0.5", "1e+06", "1.5e-07", "+Inf", "NaN"); bits is 32 or 64.
std::string go_format_float(double v, int bits = 64);

}  // namespace gpupool::api
