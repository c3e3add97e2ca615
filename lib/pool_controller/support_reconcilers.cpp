#include "gpupool/pool_controller/support_reconcilers.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <set>

#include "gpupool/api/codec.h"
#include "gpupool/api/conditions.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/resource.h"
#include "gpupool/node/device_plugin_config.h"
#include "gpupool/runtime/object_helpers.h"
#include "gpupool/stored/gpunode.h"

namespace gpupool::pool_controller {

using runtime::Result;

DevicePluginConfigReconciler::DevicePluginConfigReconciler(kube::Client& client, runtime::Store<kube::Object>& pools,
                                                           runtime::Store<kube::Object>& gpunodes,
                                                           const gpu::Catalog& catalog, std::string configmap_namespace,
                                                           std::string configmap_name)
    : client_(client),
      pools_(pools),
      gpunodes_(gpunodes),
      catalog_(catalog),
      namespace_(std::move(configmap_namespace)),
      name_(std::move(configmap_name)) {}

Result DevicePluginConfigReconciler::reconcile(const runtime::Request&, std::stop_token) {
  std::vector<std::string> profiles;
  for (const auto& m : catalog_.models()) {
    if (!m.mig) continue;
    for (const auto& p : m.mig->profiles) profiles.push_back(p.name);
  }
  std::map<std::string, std::string> data;
  auto add = [&](api::MIGStrategy strategy, const api::Sharing& sharing) {
    data[node::device_plugin_config_name(strategy, sharing)] = node::device_plugin_config_yaml(strategy, sharing, profiles);
  };
  add(api::MIGStrategy::mixed, api::Sharing{});  // nodes in no pool
  for (const auto& obj : pools_.list()) {
    auto p = api::decode_gpupool(obj->doc);
    if (!p.ok() || obj->deleting) continue;
    const auto& spec = p.value->spec;
    const bool mig = spec.partitioning && spec.partitioning->nvidia;
    add(mig ? spec.partitioning->nvidia->strategy : api::MIGStrategy::mixed, spec.sharing);
  }
  {
    std::lock_guard lock(mu_);
    std::unordered_map<std::string, NodeWants> now;
    for (const auto& obj : gpunodes_.list()) {
      NodeWants w;
      if (auto seen = wants_.find(obj->name); seen != wants_.end() && seen->second.resource_version == obj->resource_version) {
        w = std::move(seen->second);
      } else {
        w.resource_version = obj->resource_version;
        if (auto spec = stored::gpunode_spec(*obj)) {
          w.readable = true;
          w.strategy = spec->partitioning.strategy.value_or(api::MIGStrategy::mixed);
          w.sharing = std::move(spec->sharing);
        }
      }
      if (w.readable) add(w.strategy, w.sharing);
      now.emplace(obj->name, std::move(w));
    }
    wants_ = std::move(now);
  }

  const kube::ResourceRef ref{kube::core::configmaps(), namespace_, name_, ""};
  try {
    auto current = client_.get(ref);
    std::map<std::string, std::string> have;
    if (current.HasMember("data") && current["data"].IsObject()) {
      for (const auto& m : current["data"].GetObject()) {
        if (m.value.IsString()) have[m.name.GetString()] = m.value.GetString();
      }
    }
    if (have == data) return Result::done();
  } catch (const kube::ApiError& e) {
    if (!e.is_not_found()) throw;
  }
  rapidjson::Document body;
  body.SetObject();
  auto& a = body.GetAllocator();
  body.AddMember("apiVersion", "v1", a);
  body.AddMember("kind", "ConfigMap", a);
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("name", rapidjson::Value(name_.c_str(), a), a);
  meta.AddMember("namespace", rapidjson::Value(namespace_.c_str(), a), a);
  rapidjson::Value labels(rapidjson::kObjectType);
  labels.AddMember("app.kubernetes.io/managed-by", "gpupool-controller", a);
  meta.AddMember("labels", labels, a);
  body.AddMember("metadata", meta, a);
  rapidjson::Value d(rapidjson::kObjectType);
  for (const auto& [k, v] : data) d.AddMember(rapidjson::Value(k.c_str(), a), rapidjson::Value(v.c_str(), a), a);
  body.AddMember("data", d, a);
  kube::PatchOptions po;
  po.field_manager = "gpupool-controller";
  po.force = true;
  try {
    client_.patch(ref, kube::PatchType::Apply, kube::to_json(body), po);
  } catch (const kube::ApiError& e) {
    if (e.is_not_found()) {
      spdlog::error("device plugin ConfigMap {}/{}: namespace {} not found (--device-plugin-configmap)", namespace_,
                    name_, namespace_);
      return Result::requeue_after(std::chrono::minutes(1));
    }
    throw;
  }
  std::string names;
  for (const auto& [k, v] : data) names += (names.empty() ? "" : ", ") + k;
  spdlog::info("device plugin ConfigMap {}/{}: configs {}", namespace_, name_, names);
  return Result::done();
}

Result PolicyStatusReconciler::reconcile(const runtime::Request& request, std::stop_token) {
  auto policy = policies_.get(request.name);
  if (!policy || policy->deleting) return Result::done();
  auto decoded = api::decode_gpupolicy(policy->doc);
  if (!decoded.ok()) {
    spdlog::error("GPUPolicy {} cannot be read: {}", request.name, api::format_field_errors(decoded.errors));
    return Result::done();
  }
  std::vector<std::string> users;
  for (const auto& p : pools_.list()) {
    if (kube::string_at(p->doc, {"spec", "policyRef", "name"}) == request.name) users.push_back(p->name);
  }
  std::sort(users.begin(), users.end());
  api::GPUPolicyStatus status = decoded.value->status.value_or(api::GPUPolicyStatus{});
  const api::GPUPolicyStatus before = status;
  status.observed_generation = policy->generation;
  status.pools = users;
  api::Condition c;
  c.type = "Ready";
  c.status = api::ConditionStatus::true_;
  c.observed_generation = policy->generation;
  c.last_transition_time = api::Time(std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now()));
  c.reason = users.empty() ? "Unused" : "InUse";
  c.message = users.empty() ? "no GPUPool references this policy" : std::to_string(users.size()) + " pool(s) use it";
  api::set_condition(status.conditions, c);
  if (status == before) return Result::done();
  api::GPUPolicy out = *decoded.value;
  out.status = status;
  runtime::update_status(client_, kube::ResourceRef{{"gpupool.io", "v1alpha1", "gpupolicies"}, "", request.name, ""},
                         [&](rapidjson::Document& doc) {
                           rapidjson::Document encoded;
                           rapidjson::Value whole = api::encode(out, doc.GetAllocator());
                           doc.RemoveMember("status");
                           doc.AddMember("status", rapidjson::Value(whole["status"], doc.GetAllocator()), doc.GetAllocator());
                           return true;
                         });
  return Result::done();
}

}  // namespace gpupool::pool_controller
