// CrdSchemaSet::validate: which kind, then metadata, then the schema.
#include <set>

#include "gpupool/schema/crd_schema.h"
#include "gpupool/schema/schema_validate.h"
#include "gpupool/schema/value_format.h"

namespace gpupool::schema {
namespace {

using api::FieldErrors;
using api::FieldPath;

std::string string_member(const rapidjson::Value& obj, const char* name) {
  const auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || !it->value.IsString()) return {};
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

std::string type_error(const std::string& path, const rapidjson::Value& v, const char* want) {
  return std::string("Invalid value: \"") + json_type(v) + "\": " + path + " in body must be of type " + want +
         ": \"" + json_type(v) + "\"";
}

std::string quoted_list(const std::set<std::string>& values) {
  std::string out;
  for (const auto& v : values) out += (out.empty() ? "" : ", ") + go_quote(v);
  return out;
}

// ObjectMeta as the apiserver checks it for a custom resource.
void validate_metadata(const CrdKind& kind, const rapidjson::Value& object, FieldErrors& errors) {
  static const std::set<std::string, std::less<>> kKnown = {
      "name",   "generateName",       "namespace", "selfLink",          "uid",
      "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
      "labels", "annotations",        "ownerReferences", "finalizers",  "managedFields"};
  const FieldPath meta("metadata");
  const auto it = object.FindMember("metadata");
  if (it == object.MemberEnd() || it->value.IsNull()) {
    errors.push_back({"metadata.name", "Required value: name or generateName is required"});
    return;
  }
  const rapidjson::Value& m = it->value;
  if (!m.IsObject()) {
    errors.push_back({"metadata", type_error("metadata", m, "object")});
    return;
  }
  for (const auto& f : m.GetObject()) {
    const std::string_view name(f.name.GetString(), f.name.GetStringLength());
    const FieldPath p = meta.field(name);
    if (kKnown.find(name) == kKnown.end()) {
      errors.push_back({p.str(), "unknown field " + go_quote(p.str())});
    } else if ((name == "name" || name == "generateName" || name == "namespace") && !f.value.IsString()) {
      errors.push_back({p.str(), type_error(p.str(), f.value, "string")});
    }
  }
  const std::string name = string_member(m, "name");
  if (name.empty()) {
    if (string_member(m, "generateName").empty())
      errors.push_back({"metadata.name", "Required value: name or generateName is required"});
  } else if (auto e = dns1123_subdomain_error(name); !e.empty()) {
    errors.push_back({"metadata.name", "Invalid value: " + go_quote(name) + ": " + e});
  }
  if (kind.namespaced()) {
    const std::string ns = string_member(m, "namespace");
    if (!ns.empty())
      if (auto e = dns1123_label_error(ns); !e.empty())
        errors.push_back({"metadata.namespace", "Invalid value: " + go_quote(ns) + ": " + e});
  }
}

}  // namespace

FieldErrors validate_against(const CrdKind& kind, const rapidjson::Value& object) {
  FieldErrors errors;
  if (!object.IsObject()) {
    errors.push_back({"", std::string("Invalid value: \"") + json_type(object) + "\": must be of type object"});
    return errors;
  }
  validate_metadata(kind, object, errors);
  if (kind.schema) validate_root(*kind.schema, object, errors);
  return errors;
}

FieldErrors CrdSchemaSet::validate(const rapidjson::Value& object) const {
  if (!object.IsObject())
    return {{"", std::string("Invalid value: \"") + json_type(object) + "\": must be of type object"}};
  const std::string api_version = string_member(object, "apiVersion");
  const std::string kind = string_member(object, "kind");
  if (kind.empty()) return {{"kind", "Required value"}};
  if (api_version.empty()) return {{"apiVersion", "Required value"}};
  const CrdKind* k = find(api_version, kind);
  if (k == nullptr) {
    std::set<std::string> versions_of_kind;
    std::set<std::string> kinds_in_group;
    const auto slash = api_version.find('/');
    const std::string group = slash == std::string::npos ? std::string() : api_version.substr(0, slash);
    for (const auto& c : kinds_) {
      if (c.kind == kind) versions_of_kind.insert(c.api_version());
      if (c.group == group) kinds_in_group.insert(c.kind);
    }
    if (!versions_of_kind.empty())
      return {{"apiVersion", "Unsupported value: " + go_quote(api_version) +
                                 ": supported values: " + quoted_list(versions_of_kind)}};
    if (!kinds_in_group.empty())
      return {{"kind", "Unsupported value: " + go_quote(kind) + ": supported values: " + quoted_list(kinds_in_group)}};
    return {{"kind", "Invalid value: " + go_quote(kind) + ": no CustomResourceDefinition defines kind " + kind +
                         " in " + api_version}};
  }
  if (!k->served)
    return {{"apiVersion", "Invalid value: " + go_quote(api_version) + ": version " + k->version + " of " + k->kind +
                               " is not served"}};
  return validate_against(*k, object);
}

}  // namespace gpupool::schema
