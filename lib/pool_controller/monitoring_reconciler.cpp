#include "gpupool/pool_controller/monitoring_reconciler.h"

#include <spdlog/spdlog.h>

#include <vector>

#include "gpupool/api/codec.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/json_access.h"
#include "gpupool/kube/resource.h"
#include "gpupool/runtime/object_helpers.h"
#include "pool_condition.h"

namespace gpupool::pool_controller {
namespace {

using monitoring::ObjectKind;
using runtime::Result;

constexpr const char* kFieldManager = "gpupool-controller";

kube::GroupVersionResource resource_of(ObjectKind kind) {
  switch (kind) {
    case ObjectKind::service: return {"", "v1", "services"};
    case ObjectKind::service_monitor: return {"monitoring.coreos.com", "v1", "servicemonitors"};
    case ObjectKind::prometheus_rule: return {"monitoring.coreos.com", "v1", "prometheusrules"};
    case ObjectKind::dashboard_configmap: return kube::core::configmaps();
  }
  return {};
}

// The object exists and one of its owners is GPUPool `pool`.
bool owned_by_pool(const rapidjson::Value& obj, const std::string& pool) {
  const auto* refs = kube::value_at(obj, {"metadata", "ownerReferences"});
  if (refs == nullptr || !refs->IsArray()) return false;
  for (const auto& r : refs->GetArray()) {
    if (kube::string_of(kube::value_at(r, {"kind"})) == "GPUPool" &&
        kube::string_of(kube::value_at(r, {"name"})) == pool &&
        kube::string_of(kube::value_at(r, {"apiVersion"})).rfind("gpupool.io/", 0) == 0) {
      return true;
    }
  }
  return false;
}

// The object, or nullopt when there is none.
std::optional<rapidjson::Document> read(kube::Client& client, const kube::ResourceRef& ref) {
  try {
    return client.get(ref);
  } catch (const kube::ApiError& e) {
    if (e.is_not_found()) return std::nullopt;
    throw;
  }
}

}  // namespace

MonitoringReconciler::MonitoringReconciler(kube::Client& client, runtime::Store<kube::Object>& pools,
                                           runtime::Store<kube::Object>& policies, MonitoringReconcilerOptions options)
    : client_(client), pools_(pools), policies_(policies), options_(std::move(options)) {}

monitoring::MonitoringApis MonitoringReconciler::served_apis() {
  monitoring::MonitoringApis apis;
  kube::HttpResponse answer;
  try {
    answer = client_.request("GET", "/apis/monitoring.coreos.com/v1", "", "", true);
  } catch (const kube::ApiError& e) {
    if (e.is_not_found()) return apis;
    throw;
  }
  const auto doc = kube::parse_json(answer.body);
  const auto* resources = kube::value_at(doc, {"resources"});
  if (resources == nullptr || !resources->IsArray()) return apis;
  for (const auto& r : resources->GetArray()) {
    const std::string name = kube::string_of(kube::value_at(r, {"name"}));
    if (name == "servicemonitors") apis.service_monitors = true;
    if (name == "prometheusrules") apis.prometheus_rules = true;
  }
  return apis;
}

Result MonitoringReconciler::reconcile(const runtime::Request& request, std::stop_token) {
  const auto pool_obj = pools_.get(request.name);
  // Gone: the garbage collector deletes what the pool owned. Being deleted:
  // the same, once the pool reconciler has released its nodes.
  if (!pool_obj || pool_obj->deleting) return Result::done();
  const auto pool = api::decode_gpupool(pool_obj->doc);
  if (!pool.ok()) return Result::done();  // the webhook refuses such a spec; the pool reconciler reports it

  std::optional<api::HealthRules> health;
  if (pool.value->spec.policy_ref) {
    if (const auto policy_obj = policies_.get(pool.value->spec.policy_ref->name)) {
      const auto policy = api::decode_gpupolicy(policy_obj->doc);
      if (policy.ok()) health = policy.value->spec.health;
    }
  }
  const auto& objects = options_.objects;
  auto plan = monitoring::plan_monitoring(request.name, pool.value->spec.monitoring, monitoring::alert_settings(health),
                                          objects, served_apis());

  PoolCondition condition{monitoring::kMonitoringCondition, plan.condition.status, plan.condition.reason,
                          plan.condition.message};
  std::vector<std::string> refused, taken;
  for (auto& o : plan.apply) {
    const std::string what = std::string(monitoring::kind_name(o.kind)) + " " + objects.namespace_name + "/" + o.name;
    const kube::ResourceRef ref{resource_of(o.kind), objects.namespace_name, o.name, ""};
    try {
      const auto have = read(client_, ref);
      if (have && !owned_by_pool(*have, request.name)) {
        taken.push_back(what);
        continue;
      }
      runtime::apply_owned(client_, ref, kube::parse_json(o.manifest), *pool_obj, "gpupool.io/v1alpha1", "GPUPool",
                           kFieldManager);
    } catch (const kube::ApiError& e) {
      spdlog::warn("pool {}: monitoring: {} not applied: {}", request.name, what, e.what());
      refused.push_back(what + ": " + e.what());
    }
  }
  for (const auto kind : plan.remove) {
    const std::string name = monitoring::owned_name(kind, request.name);
    const kube::ResourceRef ref{resource_of(kind), objects.namespace_name, name, ""};
    try {
      const auto have = read(client_, ref);
      if (!have || !owned_by_pool(*have, request.name)) continue;
      client_.remove(ref, kube::delete_options(kube::string_of(kube::value_at(*have, {"metadata", "uid"}))));
      spdlog::info("pool {}: monitoring: deleted {} {}/{}", request.name, monitoring::kind_name(kind),
                   objects.namespace_name, name);
    } catch (const kube::ApiError& e) {
      // Gone meanwhile, or replaced by another object of that name: nothing of ours left.
      if (e.is_not_found() || e.is_conflict()) continue;
      refused.push_back(std::string("deleting ") + monitoring::kind_name(kind) + " " + objects.namespace_name + "/" +
                        name + ": " + e.what());
    }
  }
  if (!taken.empty()) {
    std::string message;
    for (const auto& t : taken) message += (message.empty() ? "" : "; ") + t;
    condition = {monitoring::kMonitoringCondition, "False", "NameTaken",
                 message + (taken.size() == 1 ? " exists" : " exist") +
                     " and is not the pool's (no ownerReference to GPUPool " + request.name +
                     "): left as it is; delete or rename it and the pool's is created"};
  }
  if (!refused.empty()) {
    std::string message = "the API server refused: ";
    for (std::size_t i = 0; i < refused.size(); ++i) message += (i ? "; " : "") + refused[i];
    condition = {monitoring::kMonitoringCondition, "False", "ApplyFailed", message};
  }

  const auto* have = find_condition(pool_obj->doc, monitoring::kMonitoringCondition);
  if (!condition_holds(have, condition, pool_obj->generation)) {
    const bool turned = have == nullptr ? condition.status == "False"
                                        : kube::string_of(kube::value_at(*have, {"status"})) != condition.status ||
                                              kube::string_of(kube::value_at(*have, {"reason"})) != condition.reason;
    write_pool_condition(client_, request.name, condition, pool_obj->generation, std::chrono::system_clock::now());
    if (turned && options_.events && condition.reason != "MonitoringDisabled") {
      const bool ok = condition.status == "True";
      options_.events->record(runtime::reference_to(pool_obj->doc),
                              ok ? runtime::EventType::Normal : runtime::EventType::Warning,
                              ok ? "MonitoringRolledOut" : "MonitoringIncomplete", "RollOutMonitoring",
                              condition.message);
    }
  }
  const bool complete = condition.status == "True" || condition.reason == "MonitoringDisabled";
  return Result::requeue_after(complete ? options_.idle_requeue : options_.missing_requeue);
}

}  // namespace gpupool::pool_controller
