#include "gpupool/stored/gpunode.h"

#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "gpupool/kube/client.h"
#include "gpupool/kube/json_access.h"

namespace gpupool::stored {

namespace {

struct Hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

std::string value_of(const SharedString& s) { return s ? *s : std::string(); }

}  // namespace

SharedString shared_string(std::string_view value) {
  static std::mutex mu;
  static auto* held = new std::unordered_map<std::string, SharedString, Hash, std::equal_to<>>();  // never freed
  std::lock_guard lock(mu);
  if (auto it = held->find(value); it != held->end()) return it->second;
  auto s = std::make_shared<const std::string>(value);
  if (held->size() < kMaxSharedStrings) held->emplace(std::string(value), s);
  return s;
}

GPUNodeReport compact(const api::GPUNodeStatus& status) {
  GPUNodeReport r;
  r.observed_generation = status.observed_generation;
  r.conditions = status.conditions;
  r.gpus.reserve(status.gpus.size());
  for (const auto& g : status.gpus) {
    ReportedGPU c;
    c.model = shared_string(g.model);
    c.catalog_id = shared_string(g.catalog_id);
    c.memory_mib = g.memory_mib;
    c.instances.reserve(g.partition.instances.size());
    for (const auto& i : g.partition.instances) c.instances.push_back({shared_string(i.profile), i.memory_mib});
    c.health_reasons = g.health_reasons;
    c.index = g.index;
    c.vendor = g.vendor;
    c.health = g.health;
    c.mig_mode = g.partition.mig_mode;
    c.compute_partition = g.partition.compute_partition;
    c.memory_partition = g.partition.memory_partition;
    c.capable = g.partition.capable;
    r.gpus.push_back(std::move(c));
  }
  r.operations = status.operations;
  r.driver_version = shared_string(status.driver_version);
  r.last_heartbeat_time = status.last_heartbeat_time;
  r.gpu_count = status.gpu_count;
  return r;
}

api::GPUNodeStatus expand(const GPUNodeReport& r) {
  api::GPUNodeStatus s;
  s.observed_generation = r.observed_generation;
  s.conditions = r.conditions;
  s.gpu_count = r.gpu_count;
  s.gpus.reserve(r.gpus.size());
  for (const auto& c : r.gpus) {
    api::GPUStatus g;
    g.index = c.index;
    g.model = value_of(c.model);
    g.catalog_id = value_of(c.catalog_id);
    g.vendor = c.vendor;
    g.memory_mib = c.memory_mib;
    g.partition.capable = c.capable;
    g.partition.mig_mode = c.mig_mode;
    g.partition.compute_partition = c.compute_partition;
    g.partition.memory_partition = c.memory_partition;
    g.partition.instances.reserve(c.instances.size());
    for (const auto& i : c.instances) {
      api::MIGInstanceStatus m;
      m.profile = value_of(i.profile);
      m.memory_mib = i.memory_mib;
      g.partition.instances.push_back(std::move(m));
    }
    g.health = c.health;
    g.health_reasons = c.health_reasons;
    s.gpus.push_back(std::move(g));
  }
  s.driver_version = value_of(r.driver_version);
  s.operations = r.operations;
  s.last_heartbeat_time = r.last_heartbeat_time;
  return s;
}

std::shared_ptr<const api::GPUNodeSpec> shared_spec(const api::GPUNodeSpec& spec) {
  api::GPUNode keyed;
  keyed.spec = spec;
  const std::string key = api::to_json(keyed);
  static std::mutex mu;
  // Never freed; entries whose spec no GPUNode holds any more are swept
  // whenever the table has doubled since the last sweep.
  static auto* held = new std::unordered_map<std::string, std::weak_ptr<const api::GPUNodeSpec>>();
  static std::size_t sweep_at = 64;
  std::lock_guard lock(mu);
  auto& slot = (*held)[key];
  if (auto live = slot.lock()) return live;
  auto made = std::make_shared<const api::GPUNodeSpec>(spec);
  slot = made;
  if (held->size() >= sweep_at) {
    std::erase_if(*held, [](const auto& entry) { return entry.second.expired(); });
    sweep_at = std::max<std::size_t>(64, 2 * held->size());
  }
  return made;
}

namespace {

// The spec members a split GPUNode keeps in its DOM.
bool kept_in_dom(std::string_view member) {
  return member == "nodeName" || member == "pool" || member == "disruptionAllowed";
}

const GPUNodeParts* parts_of(const kube::Object& gpunode) {
  return dynamic_cast<const GPUNodeParts*>(gpunode.part.get());
}

// The shared spec with the DOM's three members put back.
api::GPUNodeSpec whole_spec(const GPUNodeParts& parts, const rapidjson::Value& doc) {
  api::GPUNodeSpec spec = *parts.spec;
  spec.node_name = kube::string_at(doc, {"spec", "nodeName"});
  spec.pool = kube::string_at(doc, {"spec", "pool"});
  const rapidjson::Value* allowed = kube::value_at(doc, {"spec", "disruptionAllowed"});
  spec.disruption_allowed = allowed != nullptr && allowed->IsTrue();
  return spec;
}

}  // namespace

std::shared_ptr<const kube::ObjectPart> take_gpunode_parts(rapidjson::Document& parsed) {
  if (!parsed.IsObject()) return nullptr;
  auto decoded = api::decode_gpunode(parsed);
  if (!decoded.ok()) return nullptr;  // kept in the DOM: readers see what they saw before
  auto parts = std::make_shared<GPUNodeParts>();
  api::GPUNodeSpec rest = std::move(decoded.value->spec);
  rest.node_name.clear();
  rest.pool.clear();
  rest.disruption_allowed = false;
  parts->spec = shared_spec(rest);
  if (decoded.value->status) parts->report = compact(*decoded.value->status);
  parsed.RemoveMember("status");
  rapidjson::Value& spec = parsed["spec"];  // an object: the decode requires it
  for (auto it = spec.MemberBegin(); it != spec.MemberEnd();) {
    it = kept_in_dom(std::string_view(it->name.GetString(), it->name.GetStringLength())) ? std::next(it)
                                                                                            : spec.EraseMember(it);
  }
  return parts;
}

std::optional<api::GPUNodeSpec> gpunode_spec(const kube::Object& gpunode) {
  if (const auto* parts = parts_of(gpunode)) return whole_spec(*parts, gpunode.doc);
  auto decoded = api::decode_gpunode(gpunode.doc);
  if (!decoded.ok()) return std::nullopt;
  return std::move(decoded.value->spec);
}

std::optional<api::GPUNodeStatus> gpunode_status(const kube::Object& gpunode) {
  if (const auto* parts = parts_of(gpunode)) {
    if (!parts->report) return std::nullopt;
    return expand(*parts->report);
  }
  if (!gpunode.doc.IsObject()) return std::nullopt;
  const auto it = gpunode.doc.FindMember("status");
  if (it == gpunode.doc.MemberEnd() || it->value.IsNull()) return std::nullopt;
  auto decoded = api::decode_gpunode(gpunode.doc);
  if (!decoded.ok()) return std::nullopt;
  return std::move(decoded.value->status);
}

api::Decoded<api::GPUNode> decode_gpunode(const kube::Object& gpunode) {
  auto decoded = api::decode_gpunode(gpunode.doc);
  const auto* parts = parts_of(gpunode);
  if (parts == nullptr || !decoded.ok()) return decoded;
  decoded.value->spec = whole_spec(*parts, gpunode.doc);
  if (parts->report) decoded.value->status = expand(*parts->report);
  return decoded;
}

}  // namespace gpupool::stored
