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

}  // namespace gpupool::gpu::yaml
