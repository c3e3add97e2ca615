// The quota gate (issue 13): pods held at the scheduling gate gpupool.io/quota
// start in order while they fit their TenantQuota, and every quota's usage
// is kept from the pod informer.
//
// Pods: the pod informer's handler (pod_handler) charges each pod
// (quota/charging.h) into a UsageLedger as it changes: one event moves one
// pod's charge, never a recount. Pods this reconciler has just admitted count
// as used at once (assumed), before their update comes back through the
// informer, so one pass never admits past a limit on a stale view.
//
// One pass (any key; one queue entry for all), run only by the leader:
// 1. The charge map from the stores (quotas, namespaces, pools' unit costs);
//    when it changed, every pod is charged again.
// 2. decide_admissions (quota/admission.h) over the waiting pods, each
//    quota's limit its status.granted plus what it may borrow
//    (quota/borrowing.h), each pool's free capacity its status.capacity less
//    the devices its admitted pods hold (the ledger's second book, by pool); each
//    admitted pod's gate is removed and the pod pinned to its quota's pool
//    (nodeSelector gpupool.io/pool) in one JSON patch that first tests the
//    gates are as read.
// 2b. Reclaim: when pods within their quota's guarantee have waited for pool
//    capacity longer than the policy's reclaimGracePeriod, pods of borrowing
//    quotas are evicted (Eviction API; choose_reclaim: lowest priority, then
//    newest, only while their quota still borrows what is needed), each
//    with a Warning Event QuotaReclaimed. The need is the pool's shortfall
//    as decided, less what pods holding devices then and not running now
//    (terminating, evicted, gone) give back (quota::reclaim_for_lenders):
//    the pod store may be ahead of the ledger, and is read later. Reclaim
//    runs in a pass that starts with a pod's grace over (a grace of 0: the
//    pass after the one that first saw it short).
// 2c. Quotas whose grant ended or shrank: when the policy says Evict
//    (quota.expiry.action after its gracePeriod; quota.onCapacityLoss while
//    CapacityReduced), their pods above the grant are evicted the same way
//    (Warning Events QuotaExpired, QuotaCapacityLost); with Keep they run on.
// 3. Gated pods no quota covers any more (their TenantQuota was deleted) are
//    let go: only the gate is removed.
// 4. A pod that keeps waiting gets an Event (Normal, WaitingForQuota) naming
//    the quota and the numbers, again only when they change.
// 5. The quotas whose usage moved (pod events, this pass's admissions; all
//    of them when the charge map changed) go to on_usage_touched: the usage
//    status reconciler (usage_status_reconciler.h) writes their status, one
//    quota at a time, apart from this pass. Each quota's used, waiting,
//    borrowed and granted as gauges (quota_metrics.h), with the pods each
//    quota holds at the gate and its tenant; and each existing pool's devices
//    its admitted pods hold (the ledger's pool book).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gpupool/kube/client.h"
#include "gpupool/kube/json_projection.h"
#include "gpupool/kube/object.h"
#include "gpupool/quota/charging.h"
#include "gpupool/quota/usage_ledger.h"
#include "gpupool/quota/admission.h"
#include "gpupool/quota_controller/pool_view.h"
#include "gpupool/quota_controller/quota_metrics.h"
#include "gpupool/quota_controller/usage_status_reconciler.h"
#include "gpupool/runtime/controller.h"
#include "gpupool/runtime/event_recorder.h"
#include "gpupool/runtime/informer.h"
#include "gpupool/runtime/store.h"

namespace gpupool::quota_controller {

struct AdmissionStores {
  runtime::Store<kube::PodProjection>& pods;  // all namespaces; pods that request no GPU (quota::requests_gpu) may be left out
  runtime::Store<kube::Object>& quotas;
  runtime::Store<kube::Object>& pools;
  runtime::Store<kube::Object>& policies;
  runtime::Store<kube::Object>& gpunodes;
  runtime::Store<kube::Object>& namespaces;
  // DRA (resource.k8s.io/v1), when the API server serves it; null otherwise.
  runtime::Store<kube::Object>* claims = nullptr;
  runtime::Store<kube::Object>* claim_templates = nullptr;
};

class AdmissionReconciler : public runtime::Reconciler {
 public:
  // Publishes quota_metrics.h's gauges (the quotas' and gpupool_pool_allocated) in `registry`.
  AdmissionReconciler(kube::Client& client, AdmissionStores stores, runtime::EventRecorder* events,
                      metrics::Registry& registry)
      : client_(client), stores_(stores), events_(events), metrics_(registry) {}

  // For the pod informer: keeps the ledger and calls `wake` when a pass is
  // worth running (usage or waiting pods changed).
  runtime::EventHandler<kube::PodProjection> pod_handler(std::function<void()> wake);

  // Called with the quotas whose usage may have moved (keys, each once), from
  // the pod informer's handler and the pass, outside the lock. Set before the
  // informers start.
  void on_usage_touched(std::function<void(const std::vector<std::string>& quotas)> touched) {
    touched_ = std::move(touched);
  }
  // The quota's usage now; nullopt when no pass has charged it (not read yet, or gone).
  std::optional<QuotaUsage> quota_usage(const std::string& quota_key) const;

  runtime::Result reconcile(const runtime::Request& request, std::stop_token stop) override;

  // What the ledger holds now, and what a recount from its pods gives (tests, metrics).
  struct Usage {
    std::map<std::string, quota::Amounts> used, waiting, recount_used, recount_waiting;
    std::size_t pods = 0;
  };
  Usage usage() const;

 private:
  struct Pending {  // a pod at the gate
    std::string uid;
    std::int32_t priority = 0;
    std::int64_t created_ms = 0;
    std::vector<std::string> gates;                  // as read, for the patch's test
    std::map<std::string, std::string> node_selector;
    std::optional<quota::PodCharge> charge;          // nullopt: no quota can admit it (why_not) or none covers it
    quota::Amounts devices;                          // what it takes from its pool
    std::string pool;
    std::string why_not;
    bool covered = true;
    bool has_claims = false;  // charged through DRA claims: looked at again every pass (claims change apart from the pod)
    bool operator==(const Pending&) const = default;
  };
  // Under mu_: charges `pod` into the ledger and the pending set; true when anything changed.
  bool observe_locked(const kube::PodProjection& pod);
  bool forget_locked(const std::string& key);
  // What the pod's DRA claims ask for (quota/claims.h), from the claim stores.
  quota::PodClaims claims_of(const kube::PodProjection& pod) const;
  bool patch_pod(const std::string& key, const Pending& p, const std::string* pool);
  // Hands the quotas the ledger saw move since the last call (and `also`) to touched_.
  void tell_touched(std::vector<std::string> also = {});
  // Publishes the quota gauges (`tenants`: quota -> its tenant).
  void publish_usage(const std::map<std::string, quota::Amounts>& granted, const std::map<std::string, std::string>& tenants);
  // Publishes gpupool_pool_allocated for the pools in `views` that exist.
  void publish_allocated(const std::map<std::string, PoolView>& views);
  // Evicts borrowed pods of `pool` to free `shortfall` (devices), decided
  // while `held` (pod -> devices) held the pool's devices; `granted`: the
  // pool's quotas -> their guarantee.
  void reclaim(const std::string& pool, const quota::Amounts& shortfall, const std::string& lender,
               const std::map<std::string, quota::Amounts>& held, const std::map<std::string, quota::Amounts>& granted);
  // Evicts what the quota's pods use beyond `limit` when the policy says so
  // (expiry Evict after its grace: everything; onCapacityLoss Evict while
  // CapacityReduced). Returns when to look again (the grace not over yet).
  std::optional<std::chrono::milliseconds> evict_over_grant(const api::TenantQuota& q, const PoolView& view,
                                                            const quota::Amounts& limit);
  // Admitted pods (also those admitted here the store still shows gated,
  // assumed_) charged where `want` says, not terminating (nor evicted here,
  // evicting_), as the pod store lists them now.
  std::vector<quota::RunningPod> running_pods(const std::function<bool(const quota::PodChargeResult&)>& want);
  void evict(const std::vector<std::string>& keys, const std::string& reason,
             const std::function<std::string(const std::string& pod)>& note);

  kube::Client& client_;
  AdmissionStores stores_;
  runtime::EventRecorder* events_;
  QuotaMetrics metrics_;

  std::function<void(const std::vector<std::string>&)> touched_;
  QuotaReader quota_reader_;  // the reconcile worker's
  PoolReader pool_reader_;
  mutable std::mutex mu_;
  quota::ChargeMap map_;
  // Two books: by quota, in the quota's resources; by pool, in devices.
  static constexpr std::size_t kByQuota = 0, kByPool = 1;
  quota::UsageLedger ledger_;
  std::map<std::string, std::chrono::steady_clock::time_point> short_since_;  // pod -> waiting within its guarantee since
  std::set<std::string> assumed_;            // admitted here, informer not caught up yet
  // Evicted here (from just before the request), the informer not showing
  // the pod terminating or gone yet: counted as terminating meanwhile, or
  // the next pass, reading the pod as still running, evicts another one.
  std::set<std::string> evicting_;
  std::map<std::string, Pending> pending_;   // pod key -> at the gate
  std::map<std::string, std::string> told_;  // pod key -> the last WaitingForQuota note
};

}  // namespace gpupool::quota_controller
