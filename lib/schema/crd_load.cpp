// CustomResourceDefinition documents -> CrdKind entries with compiled schemas.
#include <algorithm>

#include "gpupool/api/manifest.h"
#include "gpupool/schema/crd_schema.h"
#include "gpupool/schema/schema_compile.h"

namespace gpupool::embedded {
std::string_view crds_yaml();
}

namespace gpupool::schema {

std::string_view builtin_crds_yaml() { return embedded::crds_yaml(); }

namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw CrdError("malformed CustomResourceDefinition (" + where + "): " + what);
}

const rapidjson::Value* member(const rapidjson::Value& obj, const char* name) {
  if (!obj.IsObject()) return nullptr;
  const auto it = obj.FindMember(name);
  return it == obj.MemberEnd() ? nullptr : &it->value;
}

std::string required_string(const rapidjson::Value& obj, const char* name, const std::string& path,
                            const std::string& where) {
  const auto* v = member(obj, name);
  if (v == nullptr || !v->IsString() || v->GetStringLength() == 0) fail(where, path + " is required (a string)");
  return std::string(v->GetString(), v->GetStringLength());
}

bool optional_bool(const rapidjson::Value& obj, const char* name, bool fallback, const std::string& path,
                   const std::string& where) {
  const auto* v = member(obj, name);
  if (v == nullptr) return fallback;
  if (!v->IsBool()) fail(where, path + " must be a boolean");
  return v->GetBool();
}

void add_crd(const api::Manifest& m, std::vector<CrdKind>& out) {
  const std::string where = m.location();
  if (m.api_version() != "apiextensions.k8s.io/v1")
    fail(where, "apiVersion " + m.api_version() + " is not supported; use apiextensions.k8s.io/v1");
  const auto* spec = member(m.object, "spec");
  if (spec == nullptr || !spec->IsObject()) fail(where, "spec is required (an object)");
  const auto* names = member(*spec, "names");
  if (names == nullptr || !names->IsObject()) fail(where, "spec.names is required (an object)");
  CrdKind base;
  base.group = required_string(*spec, "group", "spec.group", where);
  base.kind = required_string(*names, "kind", "spec.names.kind", where);
  base.plural = required_string(*names, "plural", "spec.names.plural", where);
  const auto* list_kind = member(*names, "listKind");
  base.list_kind = list_kind != nullptr && list_kind->IsString() ? list_kind->GetString() : base.kind + "List";
  base.scope = required_string(*spec, "scope", "spec.scope", where);
  if (base.scope != "Namespaced" && base.scope != "Cluster")
    fail(where, "spec.scope must be Namespaced or Cluster, not " + base.scope);
  const auto* versions = member(*spec, "versions");
  if (versions == nullptr || !versions->IsArray() || versions->Size() == 0)
    fail(where, "spec.versions is required (a non-empty list)");
  for (rapidjson::SizeType i = 0; i < versions->Size(); ++i) {
    const rapidjson::Value& v = (*versions)[i];
    const std::string vpath = "spec.versions[" + std::to_string(i) + "]";
    if (!v.IsObject()) fail(where, vpath + " must be an object");
    CrdKind k = base;
    k.version = required_string(v, "name", vpath + ".name", where);
    k.served = optional_bool(v, "served", true, vpath + ".served", where);
    k.storage = optional_bool(v, "storage", false, vpath + ".storage", where);
    const auto* schema = member(v, "schema");
    const auto* openapi = schema == nullptr ? nullptr : member(*schema, "openAPIV3Schema");
    if (openapi == nullptr || !openapi->IsObject())
      fail(where, vpath + ".schema.openAPIV3Schema is required (an object)");
    auto doc = std::make_shared<rapidjson::Document>();
    doc->CopyFrom(*openapi, doc->GetAllocator());
    try {
      k.schema = compile_schema(*doc, vpath + ".schema.openAPIV3Schema");
    } catch (const CrdError& e) {
      fail(where, base.kind + " " + k.version + ": " + e.what());
    }
    k.openapi_schema = std::move(doc);
    const bool duplicate = std::any_of(out.begin(), out.end(), [&](const CrdKind& o) {
      return o.group == k.group && o.version == k.version && o.kind == k.kind;
    });
    if (duplicate) fail(where, "kind " + k.kind + " in " + k.api_version() + " is defined twice");
    out.push_back(std::move(k));
  }
}

void add_all(const api::ManifestSet& set, std::vector<CrdKind>& out) {
  if (!set.errors.empty()) throw CrdError("cannot read CRDs: " + set.errors.front().str());
  for (const auto& m : set.objects)
    if (m.kind() == "CustomResourceDefinition") add_crd(m, out);
}

}  // namespace

CrdSchemaSet CrdSchemaSet::from_yaml(std::string_view text, std::string_view origin) {
  CrdSchemaSet set;
  add_all(api::load_manifests_from_string(text, std::string(origin)), set.kinds_);
  return set;
}

CrdSchemaSet CrdSchemaSet::load(const std::vector<std::string>& paths) {
  CrdSchemaSet set;
  add_all(api::load_manifests(paths), set.kinds_);
  return set;
}

const CrdSchemaSet& CrdSchemaSet::builtin() {
  static const CrdSchemaSet set = from_yaml(embedded::crds_yaml(), "<built-in crds>");
  return set;
}

void CrdSchemaSet::add(const CrdSchemaSet& other) {
  for (const auto& k : other.kinds_) {
    if (find(k.api_version(), k.kind) != nullptr)
      throw CrdError("kind " + k.kind + " in " + k.api_version() + " is defined twice");
    kinds_.push_back(k);
  }
}

const CrdKind* CrdSchemaSet::find(std::string_view api_version, std::string_view kind) const {
  const auto slash = api_version.find('/');
  const std::string_view group = slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
  const std::string_view version = slash == std::string_view::npos ? api_version : api_version.substr(slash + 1);
  for (const auto& k : kinds_)
    if (k.kind == kind && k.group == group && k.version == version) return &k;
  return nullptr;
}

}  // namespace gpupool::schema
