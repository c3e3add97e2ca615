#include "gpupool/kube/node_conditions.h"

#include "gpupool/kube/json_access.h"

namespace gpupool::kube {

bool node_ready(const rapidjson::Value& node) {
  const rapidjson::Value* conditions = value_at(node, {"status", "conditions"});
  if (conditions == nullptr || !conditions->IsArray()) return false;
  for (const auto& c : conditions->GetArray()) {
    if (string_of(member(c, "type")) == "Ready") return string_of(member(c, "status")) == "True";
  }
  return false;
}

}  // namespace gpupool::kube
