#include "gpupool/kube/json_access.h"

#include <algorithm>

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

bool members_differ_except(const rapidjson::Value* a, const rapidjson::Value* b,
                           std::initializer_list<std::string_view> skipped) {
  auto counts = [&](const rapidjson::Value& m) {
    const std::string_view name(m.GetString(), m.GetStringLength());
    return std::find(skipped.begin(), skipped.end(), name) == skipped.end();
  };
  // Every member of one that counts must be in the other, equal: both ways.
  auto covered = [&](const rapidjson::Value* x, const rapidjson::Value* y) {
    if (x == nullptr || !x->IsObject()) return true;
    for (const auto& m : x->GetObject()) {
      if (m.value.IsNull() || !counts(m.name)) continue;
      const rapidjson::Value* other = member(y, std::string_view(m.name.GetString(), m.name.GetStringLength()));
      if (other == nullptr || *other != m.value) return false;
    }
    return true;
  };
  return !covered(a, b) || !covered(b, a);
}

}  // namespace gpupool::kube
