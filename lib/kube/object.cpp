#include "gpupool/kube/object.h"

#include "gpupool/kube/client.h"
#include "gpupool/kube/errors.h"

namespace gpupool::kube {

Object decode_object(std::string_view json) {
  Object o;
  o.doc = parse_json(json);
  if (!o.doc.IsObject()) throw DecodeError("object: not a JSON object");
  auto meta = o.doc.FindMember("metadata");
  if (meta == o.doc.MemberEnd() || !meta->value.IsObject()) throw DecodeError("object: metadata missing");
  o.ns = string_at(meta->value, {"namespace"});
  o.name = string_at(meta->value, {"name"});
  if (o.name.empty()) throw DecodeError("object: metadata.name missing");
  o.uid = string_at(meta->value, {"uid"});
  o.resource_version = string_at(meta->value, {"resourceVersion"});
  if (auto g = meta->value.FindMember("generation"); g != meta->value.MemberEnd() && g->value.IsInt64()) {
    o.generation = g->value.GetInt64();
  }
  o.deleting = meta->value.HasMember("deletionTimestamp") && !meta->value["deletionTimestamp"].IsNull();
  return o;
}

std::string object_key(std::string_view ns, std::string_view name) {
  std::string key;
  key.reserve(ns.size() + name.size() + 1);
  if (!ns.empty()) key.append(ns).append("/");
  key.append(name);
  return key;
}

}  // namespace gpupool::kube
