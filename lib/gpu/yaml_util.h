// yaml-cpp helpers shared by the catalog and mig-parted readers.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

namespace gpupool::gpu::yaml {

// "a map", "a list", "null", a plain scalar as written, a quoted one in
// quotes: for "expected X, got Y".
std::string describe(const YAML::Node& node);
// A plain (unquoted) scalar: `7` rather than `"7"`.
bool is_plain_scalar(const YAML::Node& node);
// The mark of a node as "line L" (1-based), or "" when yaml-cpp has none.
std::string line_of(const YAML::Node& node);

}  // namespace gpupool::gpu::yaml
