// The kind table and decoding by apiVersion/kind.
#include "gpupool/api/kinds.h"

#include "json_reader.h"
#include "object_codec.h"

namespace gpupool::api {

namespace {

template <class T>
Decoded<AnyObject> widen(Decoded<T> d) {
  Decoded<AnyObject> out;
  out.errors = std::move(d.errors);
  if (d.value) out.value = AnyObject(std::move(*d.value));
  return out;
}

// apiVersion or kind: a string, present; records why not.
std::optional<std::string_view> type_meta_field(const Value& obj, std::string_view name, FieldErrors& errors) {
  const FieldPath path = FieldPath().field(name);
  for (auto m = obj.MemberBegin(); m != obj.MemberEnd(); ++m) {
    if (json::as_view(m->name) != name || m->value.IsNull()) continue;
    if (!m->value.IsString()) {
      json::type_error(errors, path, m->value, "string");
      return std::nullopt;
    }
    return json::as_view(m->value);
  }
  json::add_error(errors, path, "Required value");
  return std::nullopt;
}

Decoded<AnyObject> dispatch(const Value& v) {
  Decoded<AnyObject> out;
  if (!v.IsObject()) {
    json::type_error(out.errors, FieldPath(), v, "object");
    return out;
  }
  const auto api_version = type_meta_field(v, "apiVersion", out.errors);
  const auto kind = type_meta_field(v, "kind", out.errors);
  if (api_version && *api_version != kApiVersion) {
    const std::string_view supported[] = {kApiVersion};
    json::unsupported_value(out.errors, FieldPath().field("apiVersion"), *api_version, supported);
  }
  const auto info = kind ? find_kind(*kind) : std::nullopt;
  if (kind && !info) {
    std::vector<std::string_view> supported;
    for (const auto& k : kKinds) supported.push_back(k.kind);
    json::unsupported_value(out.errors, FieldPath().field("kind"), *kind, supported);
  }
  if (!out.errors.empty() || !info) return out;
  if (info->kind == kGPUPoolKind.kind) return widen(decode_gpupool(v));
  if (info->kind == kGPUPolicyKind.kind) return widen(decode_gpupolicy(v));
  if (info->kind == kTenantQuotaKind.kind) return widen(decode_tenantquota(v));
  return widen(decode_gpunode(v));
}

}  // namespace

std::optional<KindInfo> find_kind(std::string_view kind) {
  for (const auto& k : kKinds) {
    if (k.kind == kind) return k;
  }
  return std::nullopt;
}

Decoded<AnyObject> decode_object(const rapidjson::Value& json) {
  try {
    return dispatch(json);
  } catch (...) {
    Decoded<AnyObject> out;
    record_internal_error(out.errors);
    return out;
  }
}

rapidjson::Value encode(const AnyObject& obj, rapidjson::Document::AllocatorType& alloc) {
  return std::visit([&](const auto& o) { return encode(o, alloc); }, obj);
}

std::string to_json(const AnyObject& obj) {
  return std::visit([](const auto& o) { return to_json(o); }, obj);
}

}  // namespace gpupool::api
