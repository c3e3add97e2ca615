#include "quota_controller_setup.h"

#include "gpupool/kube/resource.h"

namespace gpupool::controller {
namespace {

using runtime::Request;

std::string labels_json(const kube::Object& o) {
  const auto& d = o.doc;
  if (!d.HasMember("metadata") || !d["metadata"].HasMember("labels")) return "";
  return kube::to_json(d["metadata"]["labels"]);
}

std::string status_json(const kube::Object& o, const char* field) {
  const auto& d = o.doc;
  if (!d.HasMember("status") || !d["status"].IsObject() || !d["status"].HasMember(field)) return "";
  return kube::to_json(d["status"][field]);
}

}  // namespace

QuotaController::QuotaController(runtime::Manager& manager, int concurrency) {
  auto& inf = manager.informers();
  auto quotas = inf.get<kube::Object>({{"gpupool.io", "v1alpha1", "tenantquotas"}, "", "", ""});
  auto pools = inf.get<kube::Object>({{"gpupool.io", "v1alpha1", "gpupools"}, "", "", ""});
  auto policies = inf.get<kube::Object>({{"gpupool.io", "v1alpha1", "gpupolicies"}, "", "", ""});
  auto gpunodes = inf.get<kube::Object>({{"gpupool.io", "v1alpha1", "gpunodes"}, "", "", ""});
  auto namespaces = inf.get<kube::Object>({kube::core::namespaces(), "", "", ""});

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
  grant_controller_->watches<kube::Object>(*quotas, [](const kube::Object& q) {
    const std::string pool = kube::string_at(q.doc, {"spec", "poolRef", "name"});
    return pool.empty() ? std::vector<Request>{} : std::vector<Request>{{"", pool}};
  });
  // A pool: its spec (policy) and its capacity; not the rollout's progress.
  grant_controller_->watches<kube::Object>(*pools, {}, [](const kube::Object& a, const kube::Object& b) {
    return a.generation != b.generation || a.deleting != b.deleting ||
           status_json(a, "capacity") != status_json(b, "capacity") || status_json(a, "granted") != status_json(b, "granted");
  });
  grant_controller_->watches<kube::Object>(
      *gpunodes,
      [](const kube::Object& g) {
        const std::string pool = kube::string_at(g.doc, {"spec", "pool"});
        return pool.empty() ? std::vector<Request>{} : std::vector<Request>{{"", pool}};
      },
      [](const kube::Object& a, const kube::Object& b) {
        return kube::string_at(a.doc, {"spec", "pool"}) != kube::string_at(b.doc, {"spec", "pool"}) ||
               status_json(a, "gpuCount") != status_json(b, "gpuCount");
      });
  grant_controller_->watches<kube::Object>(*policies, [pool_store](const kube::Object& policy) {
    std::vector<Request> out;
    for (const auto& p : pool_store->list()) {
      if (kube::string_at(p->doc, {"spec", "policyRef", "name"}) == policy.name) out.push_back({"", p->name});
    }
    return out;
  });
  grant_controller_->watches<kube::Object>(*namespaces, all_pools,
                                           [](const kube::Object& a, const kube::Object& b) { return labels_json(a) != labels_json(b); });
  manager.add(*grant_controller_);
}

}  // namespace gpupool::controller
