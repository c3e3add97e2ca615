#include "gpupool/node/node_patches.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "gpupool/kube/json_access.h"

namespace gpupool::node {
namespace {

using kube::member;

const rapidjson::Value* path(const rapidjson::Value& v, std::initializer_list<std::string_view> names) {
  return kube::value_at(v, names);
}

std::map<std::string, std::string> string_map(const rapidjson::Value* v) {
  std::map<std::string, std::string> out;
  if (v == nullptr || !v->IsObject()) return out;
  for (const auto& m : v->GetObject()) {
    if (m.name.IsString() && m.value.IsString()) out[m.name.GetString()] = m.value.GetString();
  }
  return out;
}

std::string json(const rapidjson::Document& d) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  d.Accept(w);
  return buf.GetString();
}

rapidjson::Value str(const std::string& s, rapidjson::Document::AllocatorType& a) {
  return rapidjson::Value(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a);
}

std::string resource_version(const rapidjson::Value& node) {
  const auto* rv = path(node, {"metadata", "resourceVersion"});
  return rv != nullptr && rv->IsString() ? rv->GetString() : "";
}

}  // namespace

std::optional<std::string> label_patch(const rapidjson::Value& node, const std::map<std::string, std::string>& wanted,
                                       const std::function<bool(std::string_view)>& owned) {
  const auto have = string_map(path(node, {"metadata", "labels"}));
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  rapidjson::Value labels(rapidjson::kObjectType);
  for (const auto& [k, v] : wanted) {
    auto it = have.find(k);
    if (it == have.end() || it->second != v) labels.AddMember(str(k, a), str(v, a), a);
  }
  for (const auto& [k, v] : have) {
    if (owned(k) && wanted.count(k) == 0) labels.AddMember(str(k, a), rapidjson::Value(rapidjson::kNullType), a);
  }
  if (labels.MemberCount() == 0) return std::nullopt;
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("labels", labels, a);
  d.AddMember("metadata", meta, a);
  return json(d);
}

std::optional<std::string> capacity_patch(const rapidjson::Value& node, const std::map<std::string, std::int64_t>& wanted,
                                          const std::function<bool(std::string_view)>& owned) {
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  rapidjson::Value status(rapidjson::kObjectType);
  bool any = false;
  for (const char* field : {"capacity", "allocatable"}) {
    const auto have = string_map(path(node, {"status", field}));
    rapidjson::Value m(rapidjson::kObjectType);
    for (const auto& [k, v] : wanted) {
      const std::string q = std::to_string(v);
      auto it = have.find(k);
      if (it == have.end() || it->second != q) m.AddMember(str(k, a), str(q, a), a);
    }
    for (const auto& [k, v] : have) {
      if (owned(k) && wanted.count(k) == 0) m.AddMember(str(k, a), rapidjson::Value(rapidjson::kNullType), a);
    }
    if (m.MemberCount() > 0) {
      any = true;
      status.AddMember(rapidjson::StringRef(field), m, a);
    }
  }
  if (!any) return std::nullopt;
  d.AddMember("status", status, a);
  return json(d);
}

bool drain_started(const rapidjson::Value& node) {
  return string_map(path(node, {"metadata", "annotations"})).count(kPreDrainUnschedulableAnnotation) > 0;
}

bool is_unschedulable(const rapidjson::Value& node) {
  const auto* u = path(node, {"spec", "unschedulable"});
  return u != nullptr && u->IsBool() && u->GetBool();
}

std::optional<std::string> cordon_patch(const rapidjson::Value& node) {
  const bool started = drain_started(node);
  const bool unschedulable = is_unschedulable(node);
  if (started && unschedulable) return std::nullopt;
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("resourceVersion", str(resource_version(node), a), a);
  if (!started) {
    rapidjson::Value ann(rapidjson::kObjectType);
    ann.AddMember(rapidjson::StringRef(kPreDrainUnschedulableAnnotation), rapidjson::StringRef(unschedulable ? "true" : "false"), a);
    meta.AddMember("annotations", ann, a);
  }
  d.AddMember("metadata", meta, a);
  rapidjson::Value spec(rapidjson::kObjectType);
  spec.AddMember("unschedulable", true, a);
  d.AddMember("spec", spec, a);
  return json(d);
}

std::optional<std::string> uncordon_patch(const rapidjson::Value& node) {
  const auto ann = string_map(path(node, {"metadata", "annotations"}));
  auto it = ann.find(kPreDrainUnschedulableAnnotation);
  if (it == ann.end()) return std::nullopt;
  rapidjson::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("resourceVersion", str(resource_version(node), a), a);
  rapidjson::Value annotations(rapidjson::kObjectType);
  annotations.AddMember(rapidjson::StringRef(kPreDrainUnschedulableAnnotation), rapidjson::Value(rapidjson::kNullType), a);
  meta.AddMember("annotations", annotations, a);
  d.AddMember("metadata", meta, a);
  if (it->second == "false") {
    rapidjson::Value spec(rapidjson::kObjectType);
    spec.AddMember("unschedulable", false, a);
    d.AddMember("spec", spec, a);
  }
  return json(d);
}

bool PatchMemory::already_sent(Kind kind, const std::string& body, const std::string& store_resource_version) const {
  const Sent& s = sent_[static_cast<int>(kind)];
  return !s.body.empty() && s.body == body && s.at == store_resource_version;
}

void PatchMemory::sent(Kind kind, const std::string& body, const std::string& store_resource_version) {
  sent_[static_cast<int>(kind)] = {body, store_resource_version};
}

}  // namespace gpupool::node
