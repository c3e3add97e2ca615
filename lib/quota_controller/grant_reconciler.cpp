#include "gpupool/quota_controller/grant_reconciler.h"

#include <spdlog/spdlog.h>

#include "gpupool/api/codec.h"
#include "gpupool/api/conditions.h"
#include "gpupool/common/parallel.h"
#include "gpupool/kube/json_access.h"
#include "gpupool/quota/eligibility.h"
#include "gpupool/quota/grant.h"
#include "gpupool/quota_controller/pool_view.h"
#include "gpupool/runtime/object_helpers.h"

namespace gpupool::quota_controller {
namespace {

using Doc = rapidjson::Document;
using runtime::Result;
using Clock = std::chrono::system_clock;

constexpr std::size_t kStatusWritesInFlight = 8;

kube::ResourceRef quotas_ref(const std::string& ns) { return {{"gpupool.io", "v1alpha1", "tenantquotas"}, ns, "", ""}; }
kube::ResourceRef pools_ref() { return {{"gpupool.io", "v1alpha1", "gpupools"}, "", "", ""}; }

api::QuotaPhase phase_of(quota::GrantOutcome o) {
  switch (o) {
    case quota::GrantOutcome::granted: return api::QuotaPhase::granted;
    case quota::GrantOutcome::partially_granted: return api::QuotaPhase::partially_granted;
    case quota::GrantOutcome::rejected: return api::QuotaPhase::rejected;
    case quota::GrantOutcome::expired: return api::QuotaPhase::expired;
    case quota::GrantOutcome::pending:
    case quota::GrantOutcome::waiting_for_approval: return api::QuotaPhase::pending;
  }
  return api::QuotaPhase::pending;
}

const char* reason_of(quota::GrantOutcome o) {
  switch (o) {
    case quota::GrantOutcome::granted: return "Granted";
    case quota::GrantOutcome::partially_granted: return "PartiallyGranted";
    case quota::GrantOutcome::pending: return "WaitingForCapacity";
    case quota::GrantOutcome::waiting_for_approval: return "WaitingForApproval";
    case quota::GrantOutcome::rejected: return "Rejected";
    case quota::GrantOutcome::expired: return "Expired";
  }
  return "Unknown";
}

struct QuotaEntry {
  std::shared_ptr<const kube::Object> object;
  api::TenantQuota quota;
};

// The status a quota should have: its current one with the grant's fields replaced.
api::TenantQuotaStatus status_for(const api::TenantQuota& q, api::QuotaPhase phase, const quota::Amounts& granted,
                                  const std::string& reason, const std::string& message, bool reduced,
                                  const api::Time& now) {
  api::TenantQuotaStatus s = q.status.value_or(api::TenantQuotaStatus{});
  s.observed_generation = q.metadata.generation;
  s.phase = phase;
  s.granted = to_quantities(granted);
  const bool fully = phase == api::QuotaPhase::granted;
  api::set_condition(s.conditions, {"Granted", fully ? api::ConditionStatus::true_ : api::ConditionStatus::false_,
                                    q.metadata.generation, now, reason, message});
  // kstatus' Ready (Flux and Argo CD health checks read it): the same as Granted.
  api::set_condition(s.conditions, {"Ready", fully ? api::ConditionStatus::true_ : api::ConditionStatus::false_,
                                    q.metadata.generation, now, reason, message});
  // The grant cut by falling capacity stays reduced until the quota is fully
  // granted again (a later pass keeps the cut grant and cuts nothing more, so
  // `reduced` alone would clear the condition at once).
  const api::Condition* before = api::find_condition(s.conditions, "CapacityReduced");
  reduced = reduced || (before && before->status == api::ConditionStatus::true_ && !fully &&
                        phase != api::QuotaPhase::expired);
  if (reduced || before) {
    api::set_condition(s.conditions,
                       {"CapacityReduced", reduced ? api::ConditionStatus::true_ : api::ConditionStatus::false_,
                        q.metadata.generation, now, reduced ? "CapacityFell" : "CapacityRestored",
                        reduced ? "the pool's capacity fell below the grants; running pods are handled as the "
                                  "GPUPolicy's spec.quota.onCapacityLoss says"
                                : "the grant covers the request again"});
  }
  return s;
}

rapidjson::Value encode_quota_status(const api::TenantQuotaStatus& status, Doc::AllocatorType& alloc) {
  api::TenantQuota q;
  q.metadata.name = "x";
  q.metadata.namespace_ = "x";
  q.spec.pool_ref.name = "x";
  q.status = status;
  rapidjson::Value whole = api::encode(q, alloc);
  return rapidjson::Value(whole["status"], alloc);
}

}  // namespace

Result GrantReconciler::reconcile(const runtime::Request& request, std::stop_token) {
  const std::string& pool_name = request.name;
  const auto now_tp = Clock::now();
  const api::Time now(std::chrono::time_point_cast<std::chrono::microseconds>(now_tp));

  std::vector<QuotaEntry> entries;
  for (const auto& obj : pool_quotas(stores_.quotas, pool_name)) {
    if (obj->deleting) continue;
    auto decoded = api::decode_tenantquota(obj->doc);
    if (!decoded.ok()) {
      spdlog::error("TenantQuota {}/{} cannot be read: {}", obj->ns, obj->name, api::format_field_errors(decoded.errors));
      continue;
    }
    entries.push_back({obj, std::move(*decoded.value)});
  }

  // The pool, its policy, its capacity.
  const PoolView view = pool_reader_.read(pool_name, stores_.pools, stores_.policies, stores_.gpunodes);
  const std::optional<api::GPUPool>& pool = view.pool;
  const std::string& policy_name = view.policy_name;
  const api::QuotaRules* rules = view.rules();

  quota::GrantRules grant_rules;
  grant_rules.pool = pool_name;
  grant_rules.capacity = view.capacity;
  grant_rules.unit_costs = view.unit_costs;
  if (rules) {
    grant_rules.reserve = to_amounts(rules->reserve);
    grant_rules.max_per_tenant = to_amounts(rules->max_per_tenant);
    grant_rules.partial = rules->partial_grants;
    grant_rules.manual_approval = rules->approval == api::ApprovalMode::manual;
  }
  const quota::NamespaceLabels namespaces = read_namespaces(stores_.namespaces);

  std::vector<quota::QuotaAsk> asks;
  std::optional<Clock::duration> next_expiry;
  for (const auto& e : entries) {
    const api::TenantQuota& q = e.quota;
    quota::QuotaAsk a;
    a.key = q.metadata.namespace_ + "/" + q.metadata.name;
    a.tenant = quota::tenant_of(q.metadata.namespace_, namespaces);
    a.priority = q.spec.priority;
    a.weight = weight_of(q.metadata.namespace_, rules);
    if (q.metadata.creation_timestamp) {
      a.created = std::chrono::duration_cast<std::chrono::seconds>(q.metadata.creation_timestamp->time().time_since_epoch()).count();
    }
    a.requested = to_amounts(q.spec.resources);
    if (q.status) {
      a.held = to_amounts(q.status->granted);
      if (q.status->approved) a.approved = to_amounts(q.status->approved->resources);
    }
    if (!pool) {
      a.rejected = "GPUPool " + pool_name + " does not exist";
    } else {
      a.rejected = quota::rejection(q.metadata.namespace_, q.spec.namespaces, pool_name, policy_name, rules, namespaces);
    }
    if (q.spec.expires_at) {
      const auto at = q.spec.expires_at->time();
      a.expired = at <= now_tp;
      if (!a.expired) {
        const auto left = at - now_tp;
        if (!next_expiry || left < *next_expiry) next_expiry = left;
      }
    }
    asks.push_back(std::move(a));
  }

  const quota::PoolGrants grants = quota::decide_grants(asks, grant_rules);

  auto write_status = [&](std::size_t i) {
    const auto& e = entries[i];
    const quota::QuotaGrant& g = grants.quotas[i];
    // A missing pool may yet be created: the quota waits rather than being refused.
    const std::string reason = !pool ? "PoolNotFound" : reason_of(g.outcome);
    const api::QuotaPhase phase = !pool ? api::QuotaPhase::pending : phase_of(g.outcome);
    const api::TenantQuotaStatus wanted = status_for(e.quota, phase, g.granted, reason, g.message, g.capacity_reduced, now);
    if (e.quota.status && *e.quota.status == wanted) return;
    runtime::update_status(client_, quotas_ref(e.object->ns).with_name(e.object->name), e.object->doc, [&](Doc& doc) {
      // As read (the informer's copy, or afresh after a conflict): keep the other writers' fields (used, waiting, borrowed, approved) as they are now.
      auto fresh = api::decode_tenantquota(doc);
      if (!fresh.ok()) return false;
      const api::TenantQuotaStatus s =
          status_for(*fresh.value, phase, g.granted, reason, g.message, g.capacity_reduced, now);
      if (fresh.value->status && *fresh.value->status == s) return false;
      doc.RemoveMember("status");
      doc.AddMember("status", encode_quota_status(s, doc.GetAllocator()), doc.GetAllocator());
      return true;
    });
    spdlog::info("TenantQuota {}: {} ({})", asks[i].key, reason, g.message);
  };
  // Each status is its own request, a few at once (one after another, a
  // pool's hundred quotas waited 20 s on a busy API server). The grants
  // that fall are written before any other, so the quotas never hold more
  // together than the decision gives them (as the pool reconciler
  // withdraws before it grants); a cut that fails stops the pass.
  std::vector<std::size_t> falling, others;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    (quota::fits_within(asks[i].held, grants.quotas[i].granted) ? others : falling).push_back(i);
  }
  common::for_each_parallel(falling.size(), kStatusWritesInFlight, [&](std::size_t k) { write_status(falling[k]); });
  common::for_each_parallel(others.size(), kStatusWritesInFlight, [&](std::size_t k) { write_status(others[k]); });

  // The pool's status.granted.
  if (pool) {
    const auto granted = to_quantities(grants.granted);
    const auto have = pool->status ? pool->status->granted : std::map<std::string, api::QuantityValue>{};
    if (granted != have) {
      runtime::update_status(client_, pools_ref().with_name(pool_name), [&](Doc& doc) {
        auto& a = doc.GetAllocator();
        if (!doc.HasMember("status") || !doc["status"].IsObject()) {
          doc.RemoveMember("status");
          doc.AddMember("status", rapidjson::Value(rapidjson::kObjectType), a);
        }
        rapidjson::Value map(rapidjson::kObjectType);
        for (const auto& [r, q] : granted) {
          map.AddMember(rapidjson::Value(r.c_str(), a), rapidjson::Value(q.quantity.text().c_str(), a), a);
        }
        doc["status"].RemoveMember("granted");
        if (!granted.empty()) doc["status"].AddMember("granted", map, a);
        return true;
      });
    }
  }

  if (next_expiry) {
    return Result::requeue_after(std::chrono::duration_cast<std::chrono::milliseconds>(*next_expiry) +
                                 std::chrono::seconds(1));
  }
  return Result::done();
}

}  // namespace gpupool::quota_controller
