#include "gpupool/kube/object.h"

#include <algorithm>

#include "gpupool/kube/client.h"
#include "gpupool/kube/errors.h"

namespace gpupool::kube {

Object decode_object(std::string_view json) {
  Object o;
  {
    rapidjson::Document parsed = parse_json(json);
    if (!parsed.IsObject()) throw DecodeError("object: not a JSON object");
    // A copy into one block of the parsed size (a copy needs no more: it
    // makes no spare room in arrays and objects as the parser does).
    o.allocator = std::make_unique<rapidjson::MemoryPoolAllocator<>>(std::max<std::size_t>(parsed.GetAllocator().Size(), 64));
    o.doc = rapidjson::Document(o.allocator.get());
    o.doc.CopyFrom(parsed, *o.allocator);
  }
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
