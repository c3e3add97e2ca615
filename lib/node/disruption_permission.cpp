#include "gpupool/node/disruption_permission.h"

#include "gpupool/kube/json_access.h"

namespace gpupool::node {

PermissionCheck check_permission(const rapidjson::Value& fresh, std::int64_t planned_generation) {
  const rapidjson::Value* allowed = kube::value_at(fresh, {"spec", "disruptionAllowed"});
  if (allowed == nullptr || !allowed->IsTrue()) return PermissionCheck::withdrawn;
  const rapidjson::Value* generation = kube::value_at(fresh, {"metadata", "generation"});
  if (generation == nullptr || !generation->IsInt64()) return PermissionCheck::withdrawn;
  return generation->GetInt64() == planned_generation ? PermissionCheck::holds : PermissionCheck::newer_spec;
}

}  // namespace gpupool::node
