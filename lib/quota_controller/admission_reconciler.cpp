#include "gpupool/quota_controller/admission_reconciler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>

#include "gpupool/common/parallel.h"

#include "gpupool/api/codec.h"
#include "gpupool/api/conditions.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/json_access.h"
#include "gpupool/kube/resource.h"
#include "gpupool/quota/admission.h"
#include "gpupool/quota/borrowing.h"
#include "gpupool/quota/eligibility.h"
#include "gpupool/quota/gpu_resources.h"
#include "gpupool/quota_controller/pool_view.h"
#include "gpupool/runtime/object_helpers.h"

namespace gpupool::quota_controller {
namespace {

// Requests one pass has in flight at once (pods' gates).
constexpr std::size_t kRequestsInFlight = 8;

using Doc = rapidjson::Document;
using runtime::Result;

std::string quoted(const std::string& s) {
  Doc d;
  rapidjson::Value v(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), d.GetAllocator());
  return kube::to_json(v);
}

std::string gates_json(const std::vector<std::string>& gates) {
  std::string out = "[";
  for (const auto& g : gates) out += (out.size() > 1 ? "," : "") + std::string(R"({"name":)") + quoted(g) + "}";
  return out + "]";
}

}  // namespace

bool AdmissionReconciler::forget_locked(const std::string& key) {
  ledger_.set(key, std::nullopt, kByPool);
  short_since_.erase(key);
  bool changed = ledger_.set(key, std::nullopt, kByQuota);
  assumed_.erase(key);
  evicting_.erase(key);
  told_.erase(key);
  return pending_.erase(key) > 0 || changed;
}

quota::PodClaims AdmissionReconciler::claims_of(const kube::PodProjection& pod) const {
  if (pod.rare().resource_claims.empty()) return {};
  if (!stores_.claims || !stores_.claim_templates) {
    return {{}, "the API server does not serve resource.k8s.io/v1 to this controller: DRA claims cannot be counted"};
  }
  return quota::pod_claims(pod, [this](const std::string& resource, const std::string& ns, const std::string& name) {
    auto& store = resource == "resourceclaims" ? *stores_.claims : *stores_.claim_templates;
    return store.get(kube::object_key(ns, name));
  });
}

bool AdmissionReconciler::observe_locked(const kube::PodProjection& pod) {
  const std::string key = kube::object_key(pod.ns, pod.name);
  const bool is_gated = quota::gated(pod);
  if (!is_gated) assumed_.erase(key);  // the informer caught up with our admission
  // It shows our eviction, or the key is a new pod's (gated: not the one evicted).
  if (pod.deleting || is_gated) evicting_.erase(key);
  const bool assumed = assumed_.contains(key);
  auto result = quota::charge_pod(pod, map_, assumed, claims_of(pod));
  bool changed = ledger_.set(key, result.charge, kByQuota);
  ledger_.set(key,
              result.charge ? std::optional<quota::PodCharge>(quota::PodCharge{result.pool, result.devices, result.charge->state})
                            : std::nullopt,
              kByPool);

  const bool terminal = kube::terminal(pod.phase);
  if (is_gated && !assumed && !terminal && !pod.deleting && quota::requests_gpu(pod)) {
    Pending p;
    p.uid = pod.uid;
    p.priority = pod.priority;
    p.created_ms = pod.created_ms;
    p.gates = pod.rare().scheduling_gates;
    p.node_selector = pod.rare().node_selector;
    p.charge = result.charge;
    p.devices = result.devices;
    p.pool = result.pool;
    p.why_not = result.why_not;
    // Covered, and asking for something a quota charges (a request of 0 GPUs charges nothing: let it go).
    p.covered = map_.covered(pod.ns) && (result.charge || !result.why_not.empty());
    p.has_claims = !pod.rare().resource_claims.empty();
    auto it = pending_.find(key);
    if (it == pending_.end() || !(it->second == p)) {
      pending_[key] = std::move(p);
      changed = true;
    }
  } else if (pending_.erase(key) > 0) {
    told_.erase(key);
    short_since_.erase(key);
    changed = true;
  }
  return changed;
}

runtime::EventHandler<kube::PodProjection> AdmissionReconciler::pod_handler(std::function<void()> wake) {
  // Under the lock: the event's effect on the ledger and the pending pods,
  // and the quotas whose usage it moved; outside it, who is told.
  auto apply = [this, wake](auto&& change) {
    bool changed;
    std::vector<std::string> touched;
    {
      std::lock_guard lock(mu_);
      changed = change();
      touched = ledger_.take_touched(kByQuota);
    }
    if (!touched.empty() && touched_) touched_(touched);
    if (changed) wake();
  };
  runtime::EventHandler<kube::PodProjection> h;
  h.on_add = [this, apply](const auto& pod) { apply([&] { return observe_locked(*pod); }); };
  h.on_update = [this, apply](const auto&, const auto& pod) { apply([&] { return observe_locked(*pod); }); };
  h.on_delete = [this, apply](const auto& pod) {
    apply([&] { return forget_locked(kube::object_key(pod->ns, pod->name)); });
  };
  return h;
}

std::optional<QuotaUsage> AdmissionReconciler::quota_usage(const std::string& quota_key) const {
  std::lock_guard lock(mu_);
  if (!map_.quotas.contains(quota_key)) return std::nullopt;
  return QuotaUsage{ledger_.used(quota_key, kByQuota), ledger_.waiting(quota_key, kByQuota)};
}

void AdmissionReconciler::tell_touched(std::vector<std::string> also) {
  std::vector<std::string> touched;
  {
    std::lock_guard lock(mu_);
    touched = ledger_.take_touched(kByQuota);
  }
  touched.insert(touched.end(), also.begin(), also.end());
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  if (!touched.empty() && touched_) touched_(touched);
}

AdmissionReconciler::Usage AdmissionReconciler::usage() const {
  std::lock_guard lock(mu_);
  return Usage{ledger_.all_used(), ledger_.all_waiting(), ledger_.recount_used(), ledger_.recount_waiting(), ledger_.pods()};
}

bool AdmissionReconciler::patch_pod(const std::string& key, const Pending& p, const std::string* pool) {
  const auto req = runtime::Request::from_key(key);
  std::vector<std::string> rest;
  for (const auto& g : p.gates) {
    if (g != quota::kQuotaGate) rest.push_back(g);
  }
  // The test makes the patch a no-op failure when the gates moved since they were read.
  std::string body = R"([{"op":"test","path":"/spec/schedulingGates","value":)" + gates_json(p.gates) + "},";
  body += rest.empty() ? R"({"op":"remove","path":"/spec/schedulingGates"})"
                       : R"({"op":"replace","path":"/spec/schedulingGates","value":)" + gates_json(rest) + "}";
  if (pool != nullptr) {
    auto selector = p.node_selector;
    selector[quota::kPoolSelector] = *pool;
    std::string map = "{";
    for (const auto& [k, v] : selector) map += (map.size() > 1 ? "," : "") + quoted(k) + ":" + quoted(v);
    body += R"(,{"op":"add","path":"/spec/nodeSelector","value":)" + map + "}}";
  }
  body += "]";
  try {
    client_.patch(kube::ResourceRef{kube::core::pods(), req.ns, req.name, ""}, kube::PatchType::JsonPatch, body);
    return true;
  } catch (const kube::ApiError& e) {
    if (e.is_not_found()) return false;
    spdlog::warn("pod {}: removing the gate {} failed: {}", key, quota::kQuotaGate, e.what());
    return false;
  }
}

Result AdmissionReconciler::reconcile(const runtime::Request&, std::stop_token stop) {
  // 1. The charge map from the stores.
  std::vector<quota::ChargeableQuota> charged;
  std::map<std::string, quota::Amounts> granted;  // quota -> its grant
  std::map<std::string, quota::Amounts> allowance;  // quota -> what it may borrow now
  std::map<std::string, std::int32_t> weights;
  std::map<std::string, PoolView> views;
  std::map<std::string, std::string> tenants;  // quota -> its tenant (for the gauges)
  const std::vector<QuotaReader::Decoded> quotas = quota_reader_.read(stores_.quotas);
  const quota::NamespaceLabels namespaces = read_namespaces(stores_.namespaces);
  for (const auto& decoded : quotas) {
    const api::TenantQuota& q = *decoded;
    quota::ChargeableQuota c = chargeable(q);
    tenants[c.key] = quota::tenant_of(c.ns, namespaces);
    if (q.status) granted[c.key] = to_amounts(q.status->granted);
    if (!views.contains(c.pool)) views.emplace(c.pool, pool_reader_.read(c.pool, stores_.pools, stores_.policies, stores_.gpunodes));
    const api::QuotaRules* rules = views.at(c.pool).rules();
    weights[c.key] = weight_of(c.ns, rules);
    if (rules) {
      std::optional<quota::Amounts> approved;
      if (q.status && q.status->approved) approved = to_amounts(q.status->approved->borrowing_limit);
      allowance[c.key] = quota::borrowing_allowance(
          granted[c.key], to_amounts(q.spec.borrowing_limit), approved,
          {rules->borrowing.enabled, rules->borrowing.limit_percent, rules->approval == api::ApprovalMode::manual});
    }
    charged.push_back(std::move(c));
  }
  std::map<std::string, quota::Amounts> unit_costs;
  std::map<std::string, std::map<std::string, std::string>> device_classes;
  for (const auto& [name, view] : views) {
    unit_costs[name] = view.unit_costs;
    if (view.rules()) device_classes[name] = view.rules()->device_classes;
  }
  quota::ChargeMap map = quota::build_charge_map(std::move(charged), namespaces,
                                                 std::move(unit_costs), std::move(device_classes));

  std::vector<quota::GatedPod> gated;
  std::vector<quota::QuotaBudget> budgets;
  std::map<std::string, quota::Amounts> pool_free;  // pool -> devices no admitted pod holds
  std::map<std::string, Pending> pending;
  std::vector<std::string> recharged;  // every quota, when the charge map changed
  // A pool's reclaimGracePeriod (its policy's; 5m without one).
  auto grace_of = [&views](const std::string& pool) {
    const api::QuotaRules* rules = views.contains(pool) ? views.at(pool).rules() : nullptr;
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        rules ? rules->reclaim_grace_period.value() : api::Duration::literal("5m").value());
  };
  // Pools where a pod short of its guarantee at the last pass has waited its
  // grace (only there can reclaim be due now) -> the pods holding devices
  // there, as pool_free counts them: reclaim's need is worked out against
  // this view. (It walks every pod: only when reclaim is due.)
  std::map<std::string, std::map<std::string, quota::Amounts>> held;
  const auto started = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(mu_);
    if (!(map == map_)) {
      map_ = std::move(map);
      for (const auto& [key, q] : map_.quotas) recharged.push_back(key);
      for (const auto& pod : stores_.pods.list()) observe_locked(*pod);
    } else {
      std::vector<std::string> with_claims;
      for (const auto& [key, p] : pending_) {
        if (p.has_claims) with_claims.push_back(key);
      }
      for (const auto& key : with_claims) {
        if (auto pod = stores_.pods.get(key)) observe_locked(*pod);
      }
    }
    for (const auto& [key, q] : map_.quotas) {
      budgets.push_back({key, weights[key], quota::add(granted[key], allowance[key]), ledger_.used(key), q.pool, granted[key]});
    }
    for (const auto& [name, view] : views) {
      quota::Amounts free;
      const quota::Amounts& in_use = ledger_.used(name, kByPool);
      for (const auto& [r, v] : view.capacity) {
        if (r == quota::kGpuUnit) continue;
        const auto h = in_use.find(r);
        free[r] = v - (h == in_use.end() ? 0 : h->second);
      }
      pool_free[name] = std::move(free);
    }
    pending = pending_;
    std::set<std::string> may_reclaim;
    for (const auto& [key, since] : short_since_) {
      auto p = pending_.find(key);
      if (p != pending_.end() && started - since >= grace_of(p->second.pool)) may_reclaim.insert(p->second.pool);
    }
    held = ledger_.used_by_pod(may_reclaim, kByPool);
  }
  for (const auto& [key, p] : pending) {
    if (p.charge) gated.push_back({key, p.charge->quota, p.priority, p.created_ms, p.charge->charge, p.devices});
  }

  // 2. Admit in order while they fit.
  const quota::AdmissionDecision decision = quota::decide_admissions(gated, budgets, pool_free);
  // Each admission is its own request, a few at once (all of them fit together).
  std::atomic<bool> failed = false;
  common::for_each_parallel(decision.admit.size(), kRequestsInFlight, [&](std::size_t i) {
    const std::string& key = decision.admit[i];
    if (stop.stop_requested()) {
      failed = true;  // looked at again after the restart or by the next leader
      return;
    }
    const Pending& p = pending.at(key);
    const std::string quota_pool = [&] {
      std::lock_guard lock(mu_);
      return map_.quotas.at(p.charge->quota).pool;
    }();
    if (!patch_pod(key, p, &quota_pool)) {
      failed = true;
      return;
    }
    // Logged for every admission, also when the informer was quicker than the lock below.
    spdlog::info("pod {}: admitted by TenantQuota {} (pool {})", key, p.charge->quota, quota_pool);
    std::lock_guard lock(mu_);
    // The informer may have delivered the gate's removal, or the pod's end, meanwhile: then it is counted already.
    if (!pending_.contains(key)) return;
    assumed_.insert(key);
    ledger_.set(key, quota::PodCharge{p.charge->quota, p.charge->charge, quota::PodQuotaState::admitted}, kByQuota);
    ledger_.set(key, quota::PodCharge{p.pool, p.devices, quota::PodQuotaState::admitted}, kByPool);
    pending_.erase(key);
    told_.erase(key);
  });
  if (stop.stop_requested()) return Result::requeue();

  // 2b. Reclaim for pods waiting within their guarantee past the grace period.
  const auto now = std::chrono::steady_clock::now();
  std::optional<std::chrono::milliseconds> next_reclaim;
  std::map<std::string, std::string> due;  // pool -> a lender pod past its grace
  {
    std::lock_guard lock(mu_);
    for (auto it = short_since_.begin(); it != short_since_.end();) {
      it = decision.short_of_guarantee.contains(it->first) ? std::next(it) : short_since_.erase(it);
    }
    for (const auto& key : decision.short_of_guarantee) {
      const Pending& p = pending.at(key);
      const auto since = short_since_.emplace(key, now).first->second;
      const auto grace = grace_of(p.pool);
      const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(now - since);
      if (waited >= grace && held.contains(p.pool)) {
        due.emplace(p.pool, p.charge->quota);
      } else if (waited >= grace) {
        next_reclaim = std::chrono::milliseconds(0);  // its grace ended during this pass: the next pass reclaims
      } else if (!next_reclaim || grace - waited < *next_reclaim) {
        next_reclaim = grace - waited;
      }
    }
  }
  for (const auto& [pool, lender] : due) {
    const auto s = decision.shortfall.find(pool);
    if (s == decision.shortfall.end()) continue;
    std::map<std::string, quota::Amounts> pool_granted;  // the pool's quotas -> their guarantee
    for (const auto& decoded : quotas) {
      if (decoded->spec.pool_ref.name != pool) continue;
      const std::string key = kube::object_key(decoded->metadata.namespace_, decoded->metadata.name);
      pool_granted[key] = granted[key];
    }
    reclaim(pool, s->second, lender, held.at(pool), pool_granted);
  }

  // 2c. Grants that ended or shrank, where the policy says Evict.
  for (const auto& decoded : quotas) {
    const api::TenantQuota& q = *decoded;
    const std::string key = kube::object_key(q.metadata.namespace_, q.metadata.name);
    if (auto again = evict_over_grant(q, views.at(q.spec.pool_ref.name), quota::add(granted[key], allowance[key]));
        again && (!next_reclaim || *again < *next_reclaim)) {
      next_reclaim = *again;
    }
  }

  // 3. Gated pods no quota covers any more go free.
  for (const auto& [key, p] : pending) {
    if (p.covered) continue;
    if (patch_pod(key, p, nullptr)) {
      spdlog::info("pod {}: no TenantQuota covers its namespace now; gate {} removed", key, quota::kQuotaGate);
    } else {
      failed = true;
    }
  }

  // 4. Tell waiting pods why, once per reason.
  for (const auto& [key, p] : pending) {
    if (!p.covered) continue;
    std::string note;
    if (auto w = decision.waiting.find(key); w != decision.waiting.end()) note = w->second;
    else if (!p.charge) note = p.why_not;
    if (note.empty()) continue;
    {
      std::lock_guard lock(mu_);
      if (!pending_.contains(key)) continue;
      auto& told = told_[key];
      if (told == note) continue;
      told = note;
    }
    if (events_) {
      const auto req = runtime::Request::from_key(key);
      events_->record({"v1", "Pod", req.ns, req.name, p.uid, ""}, runtime::EventType::Normal, "WaitingForQuota", "Admit",
                      "waiting at the gate " + std::string(quota::kQuotaGate) + ": " + note);
    }
  }

  // 5. The quotas whose usage moved to the usage status writer; the gauges.
  tell_touched(std::move(recharged));
  publish_usage(granted, tenants);
  publish_allocated(views);
  if (failed) return Result::requeue();
  if (next_reclaim) return Result::requeue_after(*next_reclaim + std::chrono::milliseconds(100));
  return Result::done();
}

void AdmissionReconciler::publish_allocated(const std::map<std::string, PoolView>& views) {
  std::map<std::string, quota::Amounts> allocated;
  {
    std::lock_guard lock(mu_);
    for (const auto& [name, view] : views) {
      // A pool gone (or being deleted) has no series, whatever pods pinned to it still hold.
      if (view.pool) allocated[name] = ledger_.used(name, kByPool);
    }
  }
  metrics_.publish_pools(allocated);
}

void AdmissionReconciler::publish_usage(const std::map<std::string, quota::Amounts>& granted,
                                        const std::map<std::string, std::string>& tenants) {
  std::map<std::string, QuotaFigures> figures;
  std::unique_lock lock(mu_);
  for (const auto& [key, q] : map_.quotas) {
    const auto g = granted.find(key);
    const auto t = tenants.find(key);
    QuotaFigures& f = figures[key];
    if (g != granted.end()) f.granted = g->second;
    f.used = ledger_.used(key, kByQuota);
    f.waiting = ledger_.waiting(key, kByQuota);
    f.borrowed = quota::above(f.used, f.granted);
    f.pool = q.pool;
    f.tenant = t == tenants.end() ? runtime::Request::from_key(key).ns : t->second;
  }
  for (const auto& [pod, p] : pending_) {
    if (!p.charge || p.charge->state != quota::PodQuotaState::waiting) continue;
    if (auto f = figures.find(p.charge->quota); f != figures.end()) ++f->second.pods_waiting;
  }
  lock.unlock();  // the pod handler waits on the lock meanwhile
  metrics_.publish(figures);
}

std::vector<quota::RunningPod> AdmissionReconciler::running_pods(const std::function<bool(const quota::PodChargeResult&)>& want) {
  std::vector<quota::RunningPod> out;
  std::lock_guard lock(mu_);
  for (const auto& pod : stores_.pods.list()) {
    std::string key = kube::object_key(pod->ns, pod->name);
    // Admitted here, the informer still showing the gate: running as the ledger counts it.
    const bool assumed = !assumed_.empty() && assumed_.contains(key);
    if (!assumed && quota::gated(*pod)) continue;
    const auto r = quota::charge_pod(*pod, map_, assumed, claims_of(*pod));
    if (!r.charge || r.charge->state != quota::PodQuotaState::admitted || !want(r)) continue;
    // Already on its way out: what it holds is coming back.
    if (pod->deleting || (!evicting_.empty() && evicting_.contains(key))) continue;
    out.push_back({std::move(key), r.charge->quota, pod->priority, pod->created_ms, r.charge->charge, r.devices});
  }
  return out;
}

void AdmissionReconciler::evict(const std::vector<std::string>& keys, const std::string& reason,
                                const std::function<std::string(const std::string& pod)>& note) {
  for (const auto& key : keys) {
    const auto req = runtime::Request::from_key(key);
    const std::string body = R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":)" + quoted(req.name) +
                             R"(,"namespace":)" + quoted(req.ns) + "}}";
    auto forget = [&] {
      std::lock_guard lock(mu_);
      evicting_.erase(key);
    };
    {
      // Before the request: the informer's news of it can only come after.
      std::lock_guard lock(mu_);
      evicting_.insert(key);
    }
    try {
      client_.post_raw(kube::ResourceRef{kube::core::pods(), req.ns, req.name, "eviction"}, body);
    } catch (const kube::ApiError& e) {
      forget();
      // A PodDisruptionBudget may refuse (429): the next pass tries again.
      if (!e.is_not_found()) spdlog::warn("pod {}: eviction ({}) refused: {}", key, reason, e.what());
      continue;
    } catch (...) {
      forget();
      throw;
    }
    const std::string text = note(key);
    spdlog::info("pod {}: {}", key, text);
    if (events_) events_->record({"v1", "Pod", req.ns, req.name, "", ""}, runtime::EventType::Warning, reason, "Evict", text);
  }
}

void AdmissionReconciler::reclaim(const std::string& pool, const quota::Amounts& shortfall, const std::string& lender,
                                  const std::map<std::string, quota::Amounts>& held,
                                  const std::map<std::string, quota::Amounts>& granted) {
  // Read after `held` (the pod store is never behind the ledger): pods held
  // then and not listed now are on their way out.
  const auto running = running_pods([&](const quota::PodChargeResult& r) { return r.pool == pool; });
  std::map<std::string, std::string> quota_of;
  for (const auto& p : running) quota_of[p.key] = p.quota;
  evict(quota::reclaim_for_lenders(shortfall, held, granted, running), "QuotaReclaimed", [&](const std::string& key) {
    return "evicted: TenantQuota " + quota_of[key] + " uses more than its grant in pool " + pool + ", and TenantQuota " +
           lender + " needs the capacity it is guaranteed back (reclaimGracePeriod passed)";
  });
}

std::optional<std::chrono::milliseconds> AdmissionReconciler::evict_over_grant(const api::TenantQuota& q, const PoolView& view,
                                                                               const quota::Amounts& limit) {
  const api::QuotaRules* rules = view.rules();
  if (!rules || !q.status) return std::nullopt;
  const std::string key = kube::object_key(q.metadata.namespace_, q.metadata.name);
  const bool expired = q.status->phase == api::QuotaPhase::expired && q.spec.expires_at;
  const api::Condition* reduced = api::find_condition(q.status->conditions, "CapacityReduced");
  std::string reason, why;
  quota::Amounts keep = limit;
  if (expired && rules->expiry.action == api::GuaranteeLossAction::evict) {
    const auto deadline = q.spec.expires_at->time() + std::chrono::duration_cast<std::chrono::microseconds>(rules->expiry.grace_period.value());
    const auto now = std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now());
    if (now < deadline) return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now) + std::chrono::milliseconds(100);
    reason = "QuotaExpired";
    why = "TenantQuota " + key + " expired at " + q.spec.expires_at->text() + " and the GPUPolicy's quota.expiry says Evict after " +
          rules->expiry.grace_period.text();
    keep.clear();
  } else if (!expired && reduced && reduced->status == api::ConditionStatus::true_ &&
             rules->on_capacity_loss == api::GuaranteeLossAction::evict) {
    reason = "QuotaCapacityLost";
    why = "the pool's capacity fell and TenantQuota " + key + " was granted less than its pods use; the GPUPolicy's "
          "quota.onCapacityLoss says Evict";
  } else {
    return std::nullopt;
  }
  // From one reading of the pods: those leaving are not listed, nor counted.
  const auto running = running_pods([&](const quota::PodChargeResult& r) { return r.charge->quota == key; });
  evict(quota::reclaim_above(keep, key, running), reason, [&](const std::string&) { return "evicted: " + why; });
  return std::nullopt;
}

}  // namespace gpupool::quota_controller
