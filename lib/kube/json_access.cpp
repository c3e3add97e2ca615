#include "gpupool/kube/json_access.h"

namespace gpupool::kube {

const rapidjson::Value* member(const rapidjson::Value* v, std::string_view name) {
  if (v == nullptr || !v->IsObject()) return nullptr;
  const rapidjson::Value key(rapidjson::StringRef(name.data(), name.size()));
  const auto it = v->FindMember(key);
  if (it == v->MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

const rapidjson::Value* value_at(const rapidjson::Value& v, std::initializer_list<std::string_view> path) {
  const rapidjson::Value* cur = &v;
  for (std::string_view name : path) {
    cur = member(cur, name);
    if (cur == nullptr) return nullptr;
  }
  return cur;
}

std::string string_of(const rapidjson::Value* v) {
  return v != nullptr && v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : std::string();
}

bool differs_at(const rapidjson::Value& a, const rapidjson::Value& b, std::initializer_list<std::string_view> path) {
  const rapidjson::Value* x = value_at(a, path);
  const rapidjson::Value* y = value_at(b, path);
  if (x == nullptr || y == nullptr) return x != y;
  return *x != *y;
}

}  // namespace gpupool::kube
