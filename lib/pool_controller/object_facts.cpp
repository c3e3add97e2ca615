#include "object_facts.h"

#include <charconv>

#include "gpupool/api/codec.h"
#include "gpupool/api/conditions.h"
#include "gpupool/api/enum_names.h"
#include "gpupool/common/rfc3339.h"
#include "gpupool/kube/client.h"
#include "gpupool/kube/json_access.h"
#include "gpupool/kube/object.h"
#include "gpupool/node/node_labels.h"
#include "gpupool/pool_controller/pool_reconciler.h"

namespace gpupool::pool_controller {
namespace {

using rapidjson::Value;

using kube::member;
std::string str(const Value* v) { return kube::string_of(v); }

}  // namespace

pool::PoolSelector pool_selector(const kube::Object& obj, const api::GPUPool& pool) {
  return {obj.name, pool.spec.priority, pool.spec.node_selector, obj.deleting};
}

std::optional<pool::PoolSelector> read_pool_selector(const kube::Object& obj) {
  auto decoded = api::decode_gpupool(obj.doc);
  if (!decoded.ok()) return std::nullopt;
  return pool_selector(obj, *decoded.value);
}

std::map<std::string, std::string> labels_of(const Value& obj) {
  std::map<std::string, std::string> out;
  const Value* labels = member(member(&obj, "metadata"), "labels");
  if (labels && labels->IsObject()) {
    for (const auto& m : labels->GetObject()) {
      if (m.value.IsString()) out[m.name.GetString()] = m.value.GetString();
    }
  }
  return out;
}

std::string annotation_of(const Value& obj, const char* key) {
  return str(member(member(member(&obj, "metadata"), "annotations"), key));
}

bool node_unschedulable(const Value& node) {
  const Value* u = member(member(&node, "spec"), "unschedulable");
  return u && u->IsBool() && u->GetBool();
}

std::vector<pool::NodeTaint> node_taints(const Value& node) {
  std::vector<pool::NodeTaint> out;
  const Value* taints = member(member(&node, "spec"), "taints");
  if (taints == nullptr || !taints->IsArray()) return out;
  for (const auto& t : taints->GetArray()) {
    out.push_back({str(member(&t, "key")), str(member(&t, "value")), str(member(&t, "effect"))});
  }
  return out;
}

std::set<std::string> applied_label_keys_of_entry(const Value& entry) {
  std::set<std::string> out;
  if (str(member(&entry, "operation")) != "Apply") return out;
  const Value* labels = member(member(member(&entry, "fieldsV1"), "f:metadata"), "f:labels");
  if (labels == nullptr || !labels->IsObject()) return out;
  for (const auto& m : labels->GetObject()) {
    const std::string k = m.name.GetString();
    if (k.rfind("f:", 0) == 0) out.insert(k.substr(2));
  }
  return out;
}

std::set<std::string> applied_label_keys(const Value& obj, const std::string& manager) {
  std::set<std::string> out;
  const Value* fields = member(member(&obj, "metadata"), "managedFields");
  if (fields == nullptr || !fields->IsArray()) return out;
  for (const auto& f : fields->GetArray()) {
    if (str(member(&f, "manager")) != manager) continue;
    out.merge(applied_label_keys_of_entry(f));
  }
  return out;
}

std::optional<std::chrono::system_clock::time_point> lease_renewed(const Value& lease) {
  const auto renewed = parse_rfc3339(str(member(member(&lease, "spec"), "renewTime")));
  if (!renewed) return std::nullopt;
  return to_system_clock(*renewed);
}

bool lease_alive(const Value& lease, std::chrono::system_clock::time_point now) {
  const Value* spec = member(&lease, "spec");
  const auto renewed = parse_rfc3339(str(member(spec, "renewTime")));
  const Value* duration = member(spec, "leaseDurationSeconds");
  if (!renewed || duration == nullptr || !duration->IsInt()) return false;
  return to_system_clock(*renewed) + std::chrono::seconds(duration->GetInt()) > now;
}

std::map<std::string, std::int64_t> gpu_capacity(const Value& node) {
  std::map<std::string, std::int64_t> out;
  const Value* cap = member(member(&node, "status"), "capacity");
  if (cap == nullptr || !cap->IsObject()) return out;
  for (const auto& m : cap->GetObject()) {
    const std::string name = m.name.GetString();
    if (!node::is_agent_owned_resource(name) || !m.value.IsString()) continue;
    std::int64_t n = 0;
    const std::string v = m.value.GetString();
    const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec == std::errc() && end == v.data() + v.size()) out[name] = n;
  }
  return out;
}

namespace {
std::optional<std::int64_t> generation_annotation(const api::GPUNode& node, const char* key) {
  auto it = node.metadata.annotations.find(key);
  if (it == node.metadata.annotations.end()) return std::nullopt;
  std::int64_t g = 0;
  const auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), g);
  if (ec != std::errc() || end != it->second.data() + it->second.size()) return std::nullopt;
  return g;
}
}  // namespace

GpuNodeState gpunode_state(const api::GPUNode& node) {
  GpuNodeState s;
  if (const auto withdrawn = generation_annotation(node, kWithdrawnGenerationAnnotation)) {
    s.withdrawal_unseen = !node.status || node.status->observed_generation <= *withdrawn;
  }
  if (!node.status) return s;
  auto gen = node.metadata.generation;
  if (const auto settled = generation_annotation(node, kSettledGenerationAnnotation);
      settled && !node.spec.disruption_allowed && *settled + 1 == gen && node.status->observed_generation == *settled) {
    gen = *settled;
  }
  s.observed = node.status->observed_generation == gen;
  auto holds = [&](const char* type) {
    const auto* c = api::find_condition(node.status->conditions, type);
    return c && c->observed_generation == gen && c->status == api::ConditionStatus::true_;
  };
  s.up_to_date = s.observed && holds("DriverReady") && holds("PartitionReady");
  for (const auto& op : node.status->operations) {
    if (op.type == api::OperationType::drain && op.phase == api::OperationPhase::in_progress) s.drain_held = true;
    if (s.failed || op.phase != api::OperationPhase::failed || op.observed_generation != gen) continue;
    if (op.type == api::OperationType::sharing || op.type == api::OperationType::monitoring) continue;
    s.failed = true;
    s.failure = std::string(api::to_string(op.type)) + ": " + op.reason + (op.message.empty() ? "" : ": " + op.message);
  }
  if (s.failed) s.up_to_date = false;
  return s;
}

bool newer_resource_version(const std::string& a, const std::string& b) {
  std::uint64_t x = 0, y = 0;
  const auto ra = std::from_chars(a.data(), a.data() + a.size(), x);
  const auto rb = std::from_chars(b.data(), b.data() + b.size(), y);
  if (ra.ec != std::errc() || rb.ec != std::errc()) return false;
  return x > y;
}

std::shared_ptr<const kube::Object> compact_answer_object(const rapidjson::Value& answer) {
  static const kube::DecodeTrim trim{true, std::string(PoolReconciler::kLabelManagerPrefix), {}, {}, {}, {}};
  try {
    return std::make_shared<const kube::Object>(kube::decode_object(kube::to_json(answer), trim));
  } catch (const std::exception&) {  // not an object with a name: kept as it came
    auto obj = std::make_shared<kube::Object>();
    obj->doc.CopyFrom(answer, obj->doc.GetAllocator());
    return obj;
  }
}

std::shared_ptr<const rapidjson::Document> compact_answer(const rapidjson::Value& answer) {
  auto obj = compact_answer_object(answer);
  return std::shared_ptr<const rapidjson::Document>(obj, &obj->doc);
}

}  // namespace gpupool::pool_controller
