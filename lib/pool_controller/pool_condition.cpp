#include "pool_condition.h"

#include "gpupool/api/meta.h"
#include "gpupool/kube/json_access.h"
#include "gpupool/runtime/object_helpers.h"

namespace gpupool::pool_controller {
namespace {

using Doc = rapidjson::Document;

rapidjson::Value text(const std::string& s, Doc::AllocatorType& a) {
  return rapidjson::Value(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a);
}

}  // namespace

const rapidjson::Value* find_condition(const rapidjson::Value& obj, const std::string& type) {
  const auto* c = kube::value_at(obj, {"status", "conditions"});
  if (c == nullptr || !c->IsArray()) return nullptr;
  for (const auto& x : c->GetArray()) {
    if (kube::string_of(kube::value_at(x, {"type"})) == type) return &x;
  }
  return nullptr;
}

bool condition_holds(const rapidjson::Value* have, const PoolCondition& want, std::int64_t generation) {
  if (have == nullptr) return false;
  const auto* g = kube::value_at(*have, {"observedGeneration"});
  return kube::string_of(kube::value_at(*have, {"status"})) == want.status &&
         kube::string_of(kube::value_at(*have, {"reason"})) == want.reason &&
         kube::string_of(kube::value_at(*have, {"message"})) == want.message && g != nullptr && g->IsInt64() &&
         g->GetInt64() == generation;
}

void write_pool_condition(kube::Client& client, const std::string& pool, const PoolCondition& want,
                          std::int64_t generation, std::chrono::system_clock::time_point now) {
  const kube::ResourceRef ref{{"gpupool.io", "v1alpha1", "gpupools"}, "", pool, ""};
  runtime::update_status(client, ref, [&](Doc& doc) {
    if (condition_holds(find_condition(doc, want.type), want, generation)) return false;
    auto& a = doc.GetAllocator();
    if (!doc.HasMember("status") || !doc["status"].IsObject()) {
      doc.RemoveMember("status");
      doc.AddMember("status", rapidjson::Value(rapidjson::kObjectType), a);
    }
    auto& status = doc["status"];
    if (!status.HasMember("conditions") || !status["conditions"].IsArray()) {
      status.RemoveMember("conditions");
      status.AddMember("conditions", rapidjson::Value(rapidjson::kArrayType), a);
    }
    auto& conditions = status["conditions"];
    std::string since = api::Time(std::chrono::time_point_cast<std::chrono::microseconds>(now)).text();
    for (auto it = conditions.Begin(); it != conditions.End(); ++it) {
      if (kube::string_of(kube::value_at(*it, {"type"})) != want.type) continue;
      if (kube::string_of(kube::value_at(*it, {"status"})) == want.status) {
        since = kube::string_of(kube::value_at(*it, {"lastTransitionTime"}));
      }
      conditions.Erase(it);
      break;
    }
    rapidjson::Value c(rapidjson::kObjectType);
    c.AddMember("type", text(want.type, a), a);
    c.AddMember("status", text(want.status, a), a);
    c.AddMember("observedGeneration", generation, a);
    c.AddMember("lastTransitionTime", text(since, a), a);
    c.AddMember("reason", text(want.reason, a), a);
    c.AddMember("message", text(want.message, a), a);
    conditions.PushBack(c, a);
    return true;
  });
}

}  // namespace gpupool::pool_controller
