#include "gpupool/stored/gpunode.h"

#include <algorithm>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "gpupool/kube/client.h"
#include "gpupool/kube/json_access.h"

namespace gpupool::stored {

namespace {

std::string value_of(const SharedString& s) { return s ? *s : std::string(); }

// Values many stored GPUNodes hold alike (strings, specs, GPU lists), held
// once while any holds them, found by a key (the string, the JSON). The
// tables are never freed; entries no GPUNode holds any more are swept
// whenever a table has doubled since its last sweep.
template <class T>
class SharedValues {
 public:
  std::shared_ptr<const T> hold(const std::string& key, const std::function<T()>& make) {
    std::lock_guard lock(mu_);
    auto& slot = held_[key];
    if (auto live = slot.lock()) return live;
    auto made = std::make_shared<const T>(make());
    slot = made;
    if (held_.size() >= sweep_at_) {
      std::erase_if(held_, [](const auto& entry) { return entry.second.expired(); });
      sweep_at_ = std::max<std::size_t>(64, 2 * held_.size());
    }
    return made;
  }

 private:
  std::mutex mu_;
  std::unordered_map<std::string, std::weak_ptr<const T>> held_;
  std::size_t sweep_at_ = 64;
};

}  // namespace

SharedString shared_string(std::string_view value) {
  static auto* held = new SharedValues<std::string>();  // never freed
  const std::string key(value);
  return held->hold(key, [&] { return key; });
}

namespace {

std::vector<ReportedGPU> compact_gpus(const std::vector<api::GPUStatus>& gpus) {
  std::vector<ReportedGPU> out;
  out.reserve(gpus.size());
  for (const auto& g : gpus) {
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
    out.push_back(std::move(c));
  }
  return out;
}

// The GPUs as compact_gpus makes them, held once for all reporting the same.
std::shared_ptr<const std::vector<ReportedGPU>> shared_gpus(const std::vector<api::GPUStatus>& gpus) {
  static auto* held = new SharedValues<std::vector<ReportedGPU>>();  // never freed
  api::GPUNode keyed;
  keyed.status.emplace().gpus = gpus;
  return held->hold(api::to_json(keyed), [&] { return compact_gpus(gpus); });
}

api::GPUStatus expand_gpu(const ReportedGPU& c) {
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
  return g;
}

// The status as GPUNodeParts keeps it; expand() gives it back less what the
// record leaves out.
GPUNodeReport compact(const api::GPUNodeStatus& status) {
  GPUNodeReport r;
  r.observed_generation = status.observed_generation;
  r.conditions.reserve(status.conditions.size());
  for (const auto& c : status.conditions) {
    r.conditions.push_back({shared_string(c.type), shared_string(c.reason), shared_string(c.message),
                            c.observed_generation, c.last_transition_time, c.status});
  }
  r.gpus = shared_gpus(status.gpus);
  r.operations.reserve(status.operations.size());
  for (const auto& o : status.operations) {
    r.operations.push_back({shared_string(o.reason), shared_string(o.message), o.observed_generation,
                            o.last_transition_time, o.type, o.phase});
  }
  r.driver_version = shared_string(status.driver_version);
  r.last_heartbeat_time = status.last_heartbeat_time;
  r.gpu_count = status.gpu_count;
  return r;
}

api::GPUNodeStatus expand(const GPUNodeReport& r) {
  api::GPUNodeStatus s;
  s.observed_generation = r.observed_generation;
  s.conditions.reserve(r.conditions.size());
  for (const auto& c : r.conditions) {
    api::Condition out;
    out.type = value_of(c.type);
    out.status = c.status;
    out.observed_generation = c.observed_generation;
    out.last_transition_time = c.last_transition_time;
    out.reason = value_of(c.reason);
    out.message = value_of(c.message);
    s.conditions.push_back(std::move(out));
  }
  s.gpu_count = r.gpu_count;
  if (r.gpus) {
    s.gpus.reserve(r.gpus->size());
    for (const auto& c : *r.gpus) s.gpus.push_back(expand_gpu(c));
  }
  s.driver_version = value_of(r.driver_version);
  s.operations.reserve(r.operations.size());
  for (const auto& o : r.operations) {
    api::OperationStatus out;
    out.type = o.type;
    out.phase = o.phase;
    out.observed_generation = o.observed_generation;
    out.reason = value_of(o.reason);
    out.message = value_of(o.message);
    out.last_transition_time = o.last_transition_time;
    s.operations.push_back(std::move(out));
  }
  s.last_heartbeat_time = r.last_heartbeat_time;
  return s;
}

// The spec, held once while any stored GPUNode holds it.
std::shared_ptr<const api::GPUNodeSpec> shared_spec(const api::GPUNodeSpec& spec) {
  static auto* held = new SharedValues<api::GPUNodeSpec>();  // never freed
  api::GPUNode keyed;
  keyed.spec = spec;
  return held->hold(api::to_json(keyed), [&] { return spec; });
}

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
