// Reading a core/v1 Pod's JSON into the facts a drain decides on
// (drain_plan.h). Every access is guarded: a malformed pod reads as what
// could be read, never throws.
#include <algorithm>
#include <cctype>
#include <set>

#include "gpupool/kube/json_access.h"
#include "gpupool/node/drain_plan.h"

namespace gpupool::node {
namespace {

using rapidjson::Value;

using kube::member;

std::string string_at(const Value& obj, std::string_view name) {
  const Value* v = member(obj, name);
  return v != nullptr && v->IsString() ? std::string(v->GetString(), v->GetStringLength()) : std::string();
}

bool bool_at(const Value& obj, std::string_view name) {
  const Value* v = member(obj, name);
  return v != nullptr && v->IsBool() && v->GetBool();
}

// Whether a resource quantity is readable and not zero. Quantities are
// strings ("1", "2", "0"); a number is accepted too. A string counts as zero
// when its digits are all zeros ("0", "+0", "0.0", "0k"); one without digits
// cannot be read and does not count.
bool nonzero_quantity(const Value& q) {
  if (q.IsNumber()) return q.GetDouble() != 0.0;
  if (!q.IsString()) return false;
  const std::string_view s(q.GetString(), q.GetStringLength());
  std::size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  bool digits = false;
  bool nonzero = false;
  for (; i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) != 0 || s[i] == '.'); ++i) {
    if (s[i] == '.') continue;
    digits = true;
    if (s[i] != '0') nonzero = true;
  }
  return digits && nonzero;
}

// GPU resources named with a non-zero quantity in a container's
// resources.requests or resources.limits.
void add_container_gpus(const Value& container, std::set<std::string>& out) {
  const Value* resources = member(container, "resources");
  if (resources == nullptr) return;
  for (const char* list : {"requests", "limits"}) {
    const Value* quantities = member(*resources, list);
    if (quantities == nullptr || !quantities->IsObject()) continue;
    for (const auto& m : quantities->GetObject()) {
      const std::string_view name(m.name.GetString(), m.name.GetStringLength());
      if (is_gpu_resource(name) && nonzero_quantity(m.value)) out.emplace(name);
    }
  }
}

std::vector<std::string> gpu_resources(const Value& spec) {
  std::set<std::string> found;
  for (const char* list : {"containers", "initContainers"}) {
    const Value* containers = member(spec, list);
    if (containers == nullptr || !containers->IsArray()) continue;
    for (const auto& c : containers->GetArray()) add_container_gpus(c, found);
  }
  return {found.begin(), found.end()};
}

// metav1.GetControllerOf: the first ownerReference with controller: true.
const Value* controller_of(const Value& metadata) {
  const Value* refs = member(metadata, "ownerReferences");
  if (refs == nullptr || !refs->IsArray()) return nullptr;
  for (const auto& ref : refs->GetArray()) {
    if (bool_at(ref, "controller")) return &ref;
  }
  return nullptr;
}

// kubectl drain hasLocalStorage: a volume whose emptyDir is set.
bool uses_empty_dir(const Value& spec) {
  const Value* volumes = member(spec, "volumes");
  if (volumes == nullptr || !volumes->IsArray()) return false;
  return std::any_of(volumes->Begin(), volumes->End(),
                     [](const Value& v) { return member(v, "emptyDir") != nullptr; });
}

PodFacts read_facts(const Value& pod, const std::string& skip_label) {
  PodFacts f;
  static const Value kNone;  // null: stands in for an absent part
  const Value* metadata_p = member(pod, "metadata");
  const Value* spec_p = member(pod, "spec");
  const Value* status_p = member(pod, "status");
  const Value& metadata = metadata_p != nullptr ? *metadata_p : kNone;
  const Value& spec = spec_p != nullptr ? *spec_p : kNone;
  const Value& status = status_p != nullptr ? *status_p : kNone;

  f.ns = string_at(metadata, "namespace");
  f.name = string_at(metadata, "name");
  f.uid = string_at(metadata, "uid");

  f.gpu_resources = gpu_resources(spec);
  f.uses_gpu = !f.gpu_resources.empty();

  if (const Value* ref = controller_of(metadata)) {
    f.has_controller = true;
    f.daemonset = string_at(*ref, "kind") == "DaemonSet";  // kubectl checks the kind only
  }
  if (const Value* annotations = member(metadata, "annotations")) {
    f.mirror = member(*annotations, "kubernetes.io/config.mirror") != nullptr;
  }
  const std::string phase = string_at(status, "phase");
  f.finished = phase == "Succeeded" || phase == "Failed";
  f.terminating = member(metadata, "deletionTimestamp") != nullptr;
  if (const Value* labels = member(metadata, "labels"); labels != nullptr && !skip_label.empty()) {
    f.skip = string_at(*labels, skip_label) == "true";
  }
  f.uses_empty_dir = uses_empty_dir(spec);
  return f;
}

}  // namespace

PodFacts pod_facts(const Value& pod, const std::string& skip_label) {
  try {
    return read_facts(pod, skip_label);
  } catch (const std::exception&) {
    // Only a RapidJSON shape check the guards above missed can land here
    // (JsonShapeError), or allocation failure: nothing known of the pod.
    return PodFacts{};
  }
}

}  // namespace gpupool::node
