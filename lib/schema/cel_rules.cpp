// CrdKind::cel_rules: every x-kubernetes-validations rule with the field path
// it is declared at ("[*]" for list items and map values).
#include "gpupool/schema/crd_schema.h"

namespace gpupool::schema {
namespace {

std::string str(const rapidjson::Value& obj, const char* name) {
  const auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || !it->value.IsString()) return {};
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

std::string child(const std::string& path, const std::string& name) { return path.empty() ? name : path + "." + name; }

void collect(const rapidjson::Value& s, const std::string& path, std::vector<CelRule>& out, int depth) {
  if (!s.IsObject() || depth > 128) return;
  if (const auto v = s.FindMember("x-kubernetes-validations"); v != s.MemberEnd() && v->value.IsArray()) {
    for (rapidjson::SizeType i = 0; i < v->value.Size(); ++i) {
      const auto& r = v->value[i];
      if (!r.IsObject()) continue;
      out.push_back({path, str(r, "rule"), str(r, "message"), str(r, "messageExpression"), str(r, "fieldPath"),
                     str(r, "reason")});
    }
  }
  if (const auto p = s.FindMember("properties"); p != s.MemberEnd() && p->value.IsObject())
    for (const auto& m : p->value.GetObject())
      collect(m.value, child(path, std::string(m.name.GetString(), m.name.GetStringLength())), out, depth + 1);
  if (const auto it = s.FindMember("items"); it != s.MemberEnd()) collect(it->value, path + "[*]", out, depth + 1);
  if (const auto a = s.FindMember("additionalProperties"); a != s.MemberEnd())
    collect(a->value, path + "[*]", out, depth + 1);
  for (const char* combinator : {"allOf", "anyOf", "oneOf"})
    if (const auto c = s.FindMember(combinator); c != s.MemberEnd() && c->value.IsArray())
      for (rapidjson::SizeType i = 0; i < c->value.Size(); ++i) collect(c->value[i], path, out, depth + 1);
}

}  // namespace

std::vector<CelRule> CrdKind::cel_rules() const {
  std::vector<CelRule> out;
  if (openapi_schema) collect(*openapi_schema, "", out, 0);
  return out;
}

}  // namespace gpupool::schema
