// GPUPolicy rules: the CRD's CEL invariants, resource names (quota maps and
// what DRA device classes are charged as), XID codes claimed by one rule
// only, durations in range.
#include "common_rules.h"
#include "gpupool/validation/semantic.h"

namespace gpupool::validation {

api::FieldErrors validate(const api::GPUPolicy& policy, const SemanticContext& ctx) {
  using namespace std::chrono_literals;
  api::FieldErrors errors;
  api::FieldPath sp("spec");
  const auto& spec = policy.spec;
  if (spec.quota) {
    api::FieldPath qp = sp.field("quota");
    const auto& q = *spec.quota;
    if (q.namespace_selector) check_selector(*q.namespace_selector, qp.field("namespaceSelector"), errors);
    for (std::size_t i = 0; i < q.namespaces.size(); ++i) {
      if (!is_dns1123_label(q.namespaces[i])) {
        errors.push_back({qp.field("namespaces").index(i).str(),
                          "Invalid value: \"" + q.namespaces[i] + "\": must be a namespace name (a DNS-1123 label)"});
      }
    }
    check_resource_map(q.max_per_tenant, *ctx.catalog, qp.field("maxPerTenant"), errors);
    if (q.borrowing.limit_percent > 0 && !q.borrowing.enabled) {
      errors.push_back({qp.field("borrowing").field("limitPercent").str(),
                        "Forbidden: limitPercent may only be above 0 when borrowing is enabled"});
    }
    for (const auto& [ns, weight] : q.fair_share.weights) {
      if (!is_dns1123_label(ns)) {
        errors.push_back({qp.field("fairShare").field("weights").str(),
                          "Invalid value: \"" + ns + "\": every key must be a namespace name"});
      }
      if (weight < 1 || weight > 1000) {
        errors.push_back({qp.field("fairShare").field("weights").key(ns).str(),
                          "Invalid value: " + std::to_string(weight) + ": must be between 1 and 1000"});
      }
    }
    check_duration_range(q.reclaim_grace_period, 0s, 24h, qp.field("reclaimGracePeriod"), errors);
    check_resource_map(q.reserve, *ctx.catalog, qp.field("reserve"), errors);
    check_duration_range(q.expiry.grace_period, 0s, 24h, qp.field("expiry").field("gracePeriod"), errors);
    for (const auto& [device_class, resource] : q.device_classes) {
      if (!is_dns1123_subdomain(device_class)) {
        errors.push_back({qp.field("deviceClasses").str(),
                          "Invalid value: \"" + device_class +
                              "\": every key must be a DeviceClass name (a DNS-1123 subdomain)"});
      }
      if (!is_quota_resource_name(resource, *ctx.catalog)) {
        errors.push_back({qp.field("deviceClasses").key(device_class).str(), unknown_resource_reason(resource)});
      }
    }
  }
  if (spec.health) check_health_rules(*spec.health, sp.field("health"), errors);
  if (spec.upgrade) check_upgrade_strategy(*spec.upgrade, sp.field("upgrade"), errors);
  return errors;
}

}  // namespace gpupool::validation
