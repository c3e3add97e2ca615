#include "quota_controller_setup.h"
#include "stored_objects.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "gpupool/admission/gate_configuration.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/json_access.h"
#include "gpupool/kube/resource.h"
#include "gpupool/metrics/registry.h"
#include "gpupool/quota_controller/admission_pods.h"
#include "gpupool/quota_controller/pool_view.h"

namespace gpupool::controller {
namespace {

using runtime::Request;

// Whether status.<field> differs between two versions of an object.
bool status_differs(const kube::Object& a, const kube::Object& b, const char* field) {
  return kube::differs_at(a.doc, b.doc, {"status", field});
}

bool labels_differ(const kube::Object& a, const kube::Object& b) {
  return kube::differs_at(a.doc, b.doc, {"metadata", "labels"});
}

// A pool: its spec (policy) and its capacity; not the rollout's progress.
bool pool_quota_inputs_changed(const kube::Object& a, const kube::Object& b) {
  return a.generation != b.generation || a.deleting != b.deleting ||
         status_differs(a, b, "capacity") || status_differs(a, b, "granted");
}

// What the quota reconcilers read of a GPUNode (quota_controller/pool_view.h
// read_pool: its pool, GPU count, and the GPUs' memory and MIG instances)
// changed; agents' other status writes (operations, conditions) wake neither.
bool gpunode_capacity_changed(const kube::Object& a, const kube::Object& b) {
  if (kube::string_at(a.doc, {"spec", "pool"}) != kube::string_at(b.doc, {"spec", "pool"})) return true;
  const auto sa = stored::gpunode_status(a);
  const auto sb = stored::gpunode_status(b);
  if (!sa || !sb) {  // one that does not decode: as its DOM shows it (read_pool reads it so)
    return sa.has_value() != sb.has_value() || status_differs(a, b, "gpuCount") || status_differs(a, b, "gpus");
  }
  return sa->gpu_count != sb->gpu_count || sa->gpus != sb->gpus;
}

// A TenantQuota changed in more than status.used, .waiting and .borrowed,
// the admission pass's own writes (one per quota whose pods changed): in its
// spec, labels, annotations, deletion, or what the grant reconciler and
// approvals write. Neither the grants, the gate's configuration nor
// admission read those three; waking on them was a pass of each per usage
// write (at 2,000 quotas, 880 grant passes and 261 gate passes of 92 ms
// while the bench's pods churned).
bool quota_changed_beyond_usage(const kube::Object& a, const kube::Object& b) {
  return a.generation != b.generation || a.deleting != b.deleting || labels_differ(a, b) ||
         kube::differs_at(a.doc, b.doc, {"metadata", "annotations"}) ||
         kube::members_differ_except(kube::member(a.doc, "status"), kube::member(b.doc, "status"),
                                     {"used", "waiting", "borrowed"});
}

}  // namespace

QuotaController::QuotaController(runtime::Manager& manager, int concurrency, runtime::EventRecorder* events,
                                 WebhookServer* webhook) {
  auto& inf = manager.informers();
  auto quotas = inf.get<kube::Object>({{"gpupool.io", "v1alpha1", "tenantquotas"}, "", "", ""}, {}, stored_objects());
  auto pools = inf.get<kube::Object>({{"gpupool.io", "v1alpha1", "gpupools"}, "", "", ""}, {}, stored_objects());
  auto policies = inf.get<kube::Object>({{"gpupool.io", "v1alpha1", "gpupolicies"}, "", "", ""}, {}, stored_objects());
  auto gpunodes = inf.get<kube::Object>({{"gpupool.io", "v1alpha1", "gpunodes"}, "", "", ""}, {}, stored_gpunodes());
  auto namespaces = inf.get<kube::Object>({kube::core::namespaces(), "", "", ""}, {}, stored_objects());
  // Before any pass reads them.
  quota_controller::index_gpunodes_by_pool(gpunodes->store());
  quota_controller::index_quotas_by_pool(quotas->store());

  grants_ = std::make_unique<quota_controller::GrantReconciler>(
      manager.client(), quota_controller::GrantStores{quotas->store(), pools->store(), policies->store(),
                                                      gpunodes->store(), namespaces->store()});
  runtime::ControllerOptions co;
  co.name = "tenantquota-grants";
  co.concurrency = concurrency;
  grant_controller_ = std::make_unique<runtime::Controller>(std::move(co), *grants_);

  // Handlers hold stores, never informers (see pool_controller_setup.cpp).
  auto* pool_store = &pools->store();
  auto all_pools = [pool_store](const kube::Object&) {
    std::vector<Request> out;
    for (const auto& p : pool_store->list()) out.push_back({"", p->name});
    return out;
  };
  grant_controller_->watches<kube::Object>(
      *quotas,
      [](const kube::Object& q) {
        const std::string pool = kube::string_at(q.doc, {"spec", "poolRef", "name"});
        return pool.empty() ? std::vector<Request>{} : std::vector<Request>{{"", pool}};
      },
      quota_changed_beyond_usage);
  grant_controller_->watches<kube::Object>(*pools, {}, pool_quota_inputs_changed);
  grant_controller_->watches<kube::Object>(
      *gpunodes,
      [](const kube::Object& g) {
        const std::string pool = kube::string_at(g.doc, {"spec", "pool"});
        return pool.empty() ? std::vector<Request>{} : std::vector<Request>{{"", pool}};
      },
      gpunode_capacity_changed);
  grant_controller_->watches<kube::Object>(*policies, [pool_store](const kube::Object& policy) {
    std::vector<Request> out;
    for (const auto& p : pool_store->list()) {
      if (kube::string_at(p->doc, {"spec", "policyRef", "name"}) == policy.name) out.push_back({"", p->name});
    }
    return out;
  });
  grant_controller_->watches<kube::Object>(*namespaces, all_pools,
                                           labels_differ);
  manager.add(*grant_controller_);

  if (webhook == nullptr) {
    spdlog::warn("no webhook server (--webhook-bind-address): TenantQuotas are granted but pods are not held to them");
    return;
  }
  const Request all{"", "all"};
  auto everything = [all](const kube::Object&) { return std::vector<Request>{all}; };

  // The gate's admission objects: covered namespaces follow quotas and namespace labels.
  quota_controller::GateWebhook gw{[webhook] { return webhook->ca_bundle(); }, webhook->client_config(admission::kGatePath)};
  gate_config_ = std::make_unique<quota_controller::GateConfigReconciler>(manager.client(), quotas->store(),
                                                                          namespaces->store(), std::move(gw));
  runtime::ControllerOptions gco;
  gco.name = "quota-gate-configuration";
  gate_config_controller_ = std::make_unique<runtime::Controller>(std::move(gco), *gate_config_);
  // It reads a quota's spec only (the namespaces it covers): the grant
  // reconciler's status writes do not wake it (at full size they woke it
  // hundreds of times, each pass reading all 2,000 quotas: 46 % of the
  // controller's CPU in a profile of the end of its sync and the pod churn).
  gate_config_controller_->watches<kube::Object>(*quotas, everything, runtime::generation_changed);
  gate_config_controller_->watches<kube::Object>(*namespaces, everything,
                                                 labels_differ);
  auto* gate_controller = gate_config_controller_.get();
  webhook->on_ca_bundle_change([gate_controller, all] { gate_controller->enqueue(all); });
  gate_config_controller_->enqueue(all);
  manager.add(*gate_config_controller_);

  // Admission: one pass for all quotas (one queue key), the pods' usage kept by the informer's handler.
  // The store keeps GPU pods only, trimmed to what admission reads (quota_controller/admission_pods.h).
  const runtime::InformerFilter<kube::PodProjection> gpu_pods{
      "requests-gpu", quota_controller::admission_keeps, [](std::string_view json) {
        auto pod = kube::project_pod(json);
        quota_controller::trim_for_admission(pod);
        return pod;
      }};
  auto pods = manager.informers().get<kube::PodProjection>({kube::core::pods(), "", "", ""}, {}, gpu_pods);
  quota_controller::AdmissionStores stores{pods->store(), quotas->store(), pools->store(), policies->store(),
                                           gpunodes->store(), namespaces->store()};
  // DRA claims, where the API server serves resource.k8s.io/v1 (an informer of an API that is not
  // served would never sync and hold the manager back).
  std::vector<runtime::Informer<kube::Object>*> dra;
  try {
    manager.client().request("GET", "/apis/resource.k8s.io/v1", "", "", true);
    auto claims = inf.get<kube::Object>({{"resource.k8s.io", "v1", "resourceclaims"}, "", "", ""}, {}, stored_objects());
    auto templates = inf.get<kube::Object>({{"resource.k8s.io", "v1", "resourceclaimtemplates"}, "", "", ""}, {}, stored_objects());
    stores.claims = &claims->store();
    stores.claim_templates = &templates->store();
    dra = {claims.get(), templates.get()};
  } catch (const kube::ApiError& e) {
    if (!e.is_not_found()) throw;
    spdlog::warn("the API server does not serve resource.k8s.io/v1: pods with DRA claims in covered namespaces wait, uncounted");
  }
  admission_ = std::make_unique<quota_controller::AdmissionReconciler>(manager.client(), stores, events,
                                                                       metrics::default_registry());
  runtime::ControllerOptions aco;
  aco.name = "quota-admission";
  admission_controller_ = std::make_unique<runtime::Controller>(std::move(aco), *admission_);
  auto* admission_controller = admission_controller_.get();

  // Usage into each quota's status, a quota per key, apart from the admission pass.
  auto* admission = admission_.get();
  usage_status_ = std::make_unique<quota_controller::UsageStatusReconciler>(
      manager.client(), quotas->store(),
      [admission](const std::string& key) { return admission->quota_usage(key); });
  runtime::ControllerOptions uco;
  uco.name = "tenantquota-usage";
  // Writes of several quotas at once: one never waits for many. After a
  // restart every quota whose pods changed meanwhile is written (2,000 at
  // the benchmark's full size, ~230 ms a write on its busy API server).
  // 16 writers took those writes from 117 s to 15 s there. (The 263.6 MiB
  // peak that once kept this at 4 was the bench reading its own size before
  // the exec: README, 2026-11-29.)
  constexpr int kUsageWriters = 16;
  uco.concurrency = std::max(concurrency, kUsageWriters);
  usage_status_controller_ = std::make_unique<runtime::Controller>(std::move(uco), *usage_status_);
  auto* usage_controller = usage_status_controller_.get();
  admission_->on_usage_touched([usage_controller](const std::vector<std::string>& keys) {
    for (const auto& key : keys) usage_controller->enqueue(runtime::Request::from_key(key));
  });
  usage_status_controller_->watches<kube::Object>(*quotas, {}, quota_controller::quota_usage_status_changed);

  pods->add_handler(admission_->pod_handler([admission_controller, all] { admission_controller->enqueue(all); }));
  admission_controller_->watches<kube::Object>(*quotas, everything, quota_changed_beyond_usage);
  for (auto* source : {policies.get(), namespaces.get()}) {
    admission_controller_->watches<kube::Object>(*source, everything);
  }
  admission_controller_->watches<kube::Object>(*pools, everything, pool_quota_inputs_changed);
  admission_controller_->watches<kube::Object>(*gpunodes, everything, gpunode_capacity_changed);
  for (auto* source : dra) admission_controller_->watches<kube::Object>(*source, everything);
  admission_controller_->enqueue(all);
  manager.add(*admission_controller_);
  manager.add(*usage_status_controller_);
}

}  // namespace gpupool::controller
