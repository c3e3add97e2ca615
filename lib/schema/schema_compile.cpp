#include "gpupool/schema/schema_compile.h"

#include <cmath>

#include "gpupool/schema/crd_schema.h"

namespace gpupool::schema {
namespace {

constexpr int kMaxSchemaDepth = 128;

class Compiler {
 public:
  std::unique_ptr<SchemaNode> compile(const rapidjson::Value& s, const std::string& where, int depth) {
    if (depth > kMaxSchemaDepth) fail(where, "schema nested too deeply");
    if (!s.IsObject()) fail(where, "a schema must be an object");
    auto node = std::make_unique<SchemaNode>();
    node->type = string_of(s, "type", where);
    if (!node->type.empty() && node->type != "object" && node->type != "array" && node->type != "string" &&
        node->type != "integer" && node->type != "number" && node->type != "boolean")
      fail(where + ".type", "unsupported type \"" + node->type + "\"");
    node->format = string_of(s, "format", where);
    node->nullable = bool_of(s, "nullable", where);
    node->has_default = s.HasMember("default");
    node->preserve_unknown_fields = bool_of(s, "x-kubernetes-preserve-unknown-fields", where);
    node->int_or_string = bool_of(s, "x-kubernetes-int-or-string", where);
    node->embedded_resource = bool_of(s, "x-kubernetes-embedded-resource", where);

    if (const auto* props = member(s, "properties")) {
      if (!props->IsObject()) fail(where + ".properties", "must be an object");
      for (const auto& m : props->GetObject()) {
        const std::string name(m.name.GetString(), m.name.GetStringLength());
        if (node->property_index.count(name) != 0) fail(where + ".properties", "duplicate property " + name);
        node->property_index.emplace(name, node->properties.size());
        node->properties.emplace_back(name, compile(m.value, where + ".properties." + name, depth + 1));
      }
    }
    if (const auto* req = member(s, "required")) node->required = strings_of(*req, where + ".required");
    if (const auto* add = member(s, "additionalProperties")) {
      if (add->IsBool()) {
        node->additional = add->GetBool() ? SchemaNode::Additional::Any : SchemaNode::Additional::Forbidden;
      } else {
        node->additional = SchemaNode::Additional::Schema;
        node->additional_schema = compile(*add, where + ".additionalProperties", depth + 1);
      }
    }
    if (const auto* items = member(s, "items")) node->items = compile(*items, where + ".items", depth + 1);
    if (const auto* e = member(s, "enum")) {
      if (!e->IsArray()) fail(where + ".enum", "must be a list");
      auto doc = std::make_shared<rapidjson::Document>();
      doc->CopyFrom(*e, doc->GetAllocator());
      node->enum_values = std::move(doc);
    }
    node->minimum = number_of(s, "minimum", where);
    node->maximum = number_of(s, "maximum", where);
    node->exclusive_minimum = bool_of(s, "exclusiveMinimum", where);
    node->exclusive_maximum = bool_of(s, "exclusiveMaximum", where);
    node->min_length = count_of(s, "minLength", where);
    node->max_length = count_of(s, "maxLength", where);
    node->min_items = count_of(s, "minItems", where);
    node->max_items = count_of(s, "maxItems", where);
    node->min_properties = count_of(s, "minProperties", where);
    node->max_properties = count_of(s, "maxProperties", where);
    node->pattern = string_of(s, "pattern", where);
    if (!node->pattern.empty()) node->pattern_re = compile_pattern(node->pattern);
    node->list_type = string_of(s, "x-kubernetes-list-type", where);
    if (const auto* keys = member(s, "x-kubernetes-list-map-keys"))
      node->list_map_keys = strings_of(*keys, where + ".x-kubernetes-list-map-keys");
    if (node->list_type == "map" && node->list_map_keys.empty())
      fail(where, "x-kubernetes-list-type: map needs x-kubernetes-list-map-keys");
    compile_list(s, "allOf", where, depth, node->all_of);
    compile_list(s, "anyOf", where, depth, node->any_of);
    compile_list(s, "oneOf", where, depth, node->one_of);
    if (const auto* n = member(s, "not")) node->not_ = compile(*n, where + ".not", depth + 1);
    return node;
  }

 private:
  [[noreturn]] static void fail(const std::string& where, const std::string& what) {
    throw CrdError("invalid openAPIV3Schema at " + where + ": " + what);
  }

  static const rapidjson::Value* member(const rapidjson::Value& s, const char* name) {
    const auto it = s.FindMember(name);
    return it == s.MemberEnd() ? nullptr : &it->value;
  }

  static std::string string_of(const rapidjson::Value& s, const char* name, const std::string& where) {
    const auto* v = member(s, name);
    if (v == nullptr) return {};
    if (!v->IsString()) fail(where + "." + name, "must be a string");
    return std::string(v->GetString(), v->GetStringLength());
  }

  static bool bool_of(const rapidjson::Value& s, const char* name, const std::string& where) {
    const auto* v = member(s, name);
    if (v == nullptr) return false;
    if (!v->IsBool()) fail(where + "." + name, "must be a boolean");
    return v->GetBool();
  }

  static std::optional<double> number_of(const rapidjson::Value& s, const char* name, const std::string& where) {
    const auto* v = member(s, name);
    if (v == nullptr) return std::nullopt;
    if (!v->IsNumber()) fail(where + "." + name, "must be a number");
    return v->GetDouble();
  }

  static std::optional<std::int64_t> count_of(const rapidjson::Value& s, const char* name, const std::string& where) {
    const auto* v = member(s, name);
    if (v == nullptr) return std::nullopt;
    if (v->IsInt64() && v->GetInt64() >= 0) return v->GetInt64();
    if (v->IsDouble() && v->GetDouble() >= 0 && v->GetDouble() < 9e18 && std::trunc(v->GetDouble()) == v->GetDouble())
      return static_cast<std::int64_t>(v->GetDouble());
    fail(where + "." + name, "must be a non-negative integer");
  }

  static std::vector<std::string> strings_of(const rapidjson::Value& v, const std::string& where) {
    if (!v.IsArray()) fail(where, "must be a list of strings");
    std::vector<std::string> out;
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      if (!v[i].IsString()) fail(where, "must be a list of strings");
      out.emplace_back(v[i].GetString(), v[i].GetStringLength());
    }
    return out;
  }

  void compile_list(const rapidjson::Value& s, const char* name, const std::string& where, int depth,
                    std::vector<std::unique_ptr<SchemaNode>>& out) {
    const auto* v = member(s, name);
    if (v == nullptr) return;
    if (!v->IsArray()) fail(where + "." + name, "must be a list of schemas");
    for (rapidjson::SizeType i = 0; i < v->Size(); ++i)
      out.push_back(compile((*v)[i], where + "." + name + "[" + std::to_string(i) + "]", depth + 1));
  }
};

}  // namespace

std::unique_ptr<SchemaNode> compile_schema(const rapidjson::Value& schema, const std::string& where) {
  return Compiler().compile(schema, where, 0);
}

std::shared_ptr<std::regex> compile_pattern(const std::string& pattern) {
  std::string p;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\' && i + 1 < pattern.size()) {
      const char c = pattern[i + 1];
      if (c == 'A') {
        p += '^';
        ++i;
        continue;
      }
      if (c == 'z') {
        p += '$';
        ++i;
        continue;
      }
      p += pattern[i];
      p += c;
      ++i;
      continue;
    }
    p += pattern[i];
  }
  try {
    return std::make_shared<std::regex>(p, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    return nullptr;
  }
}

}  // namespace gpupool::schema
