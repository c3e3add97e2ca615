// What a Node's status says of it, read null-safely: one reading for the
// controller, the CLI and the benchmark.
#pragma once

#include <rapidjson/document.h>

namespace gpupool::kube {

// The Node's condition Ready has status "True" (absent, Unknown or False: not Ready).
bool node_ready(const rapidjson::Value& node);

}  // namespace gpupool::kube
