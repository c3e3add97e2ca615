#include "gpupool/quota_controller/quota_metrics.h"

namespace gpupool::quota_controller {
namespace {

double in_unit(std::int64_t micro) { return static_cast<double>(micro) / static_cast<double>(quota::kMicro); }

}  // namespace

QuotaMetrics::QuotaMetrics(metrics::Registry& r) {
  const std::vector<std::string> labels = {"namespace", "name", "resource"};
  granted_ = &r.gauge_function_family("gpupool_tenantquota_granted", "What the TenantQuota is guaranteed, in the resource's unit", labels);
  used_ = &r.gauge_function_family("gpupool_tenantquota_used",
                                   "Requests of the TenantQuota's admitted pods (past the gate, not finished)", labels);
  waiting_ = &r.gauge_function_family("gpupool_tenantquota_waiting", "Requests of the TenantQuota's pods held at the gate", labels);
  borrowed_ = &r.gauge_function_family("gpupool_tenantquota_borrowed", "The TenantQuota's use above its grant", labels);
  pods_waiting_ = &r.gauge_function_family("gpupool_tenantquota_pods_waiting",
                                           "Pods held at the gate for the TenantQuota (a count)", {"namespace", "name"});
  info_ = &r.gauge_function_family("gpupool_tenantquota_info", "The TenantQuota's pool and tenant (value 1)",
                                   {"namespace", "name", "pool", "tenant"});
  allocated_ = &r.gauge_function_family(
      "gpupool_pool_allocated",
      "Devices the admitted pods pinned to the GPUPool hold (past the quota gate, not finished), by resource",
      {"pool", "resource"});
}

void QuotaMetrics::replace(Shown& shown, Shown now) {
  for (const auto& [family, labels] : shown) {
    if (!now.contains({family, labels})) family->with(labels).set({});
  }
  shown = std::move(now);
}

void QuotaMetrics::publish(const std::map<std::string, QuotaFigures>& quotas) {
  Shown now;
  auto set = [&now](Family* family, std::vector<std::string> labels, double value) {
    family->with(labels).set([value] { return value; });
    now.emplace(family, std::move(labels));
  };
  for (const auto& [key, f] : quotas) {
    const auto slash = key.find('/');
    const std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
    set(info_, {ns, name, f.pool, f.tenant}, 1.0);
    set(pods_waiting_, {ns, name}, static_cast<double>(f.pods_waiting));
    for (auto [family, amounts] : {std::pair{granted_, &f.granted}, std::pair{used_, &f.used},
                                   std::pair{waiting_, &f.waiting}, std::pair{borrowed_, &f.borrowed}}) {
      for (const auto& [resource, micro] : *amounts) set(family, {ns, name, resource}, in_unit(micro));
    }
  }
  replace(shown_, std::move(now));
}

void QuotaMetrics::publish_pools(const std::map<std::string, quota::Amounts>& allocated) {
  Shown now;
  for (const auto& [pool, amounts] : allocated) {
    for (const auto& [resource, micro] : amounts) {
      if (micro == 0) continue;
      std::vector<std::string> labels{pool, resource};
      allocated_->with(labels).set([value = in_unit(micro)] { return value; });
      now.emplace(allocated_, std::move(labels));
    }
  }
  replace(pools_shown_, std::move(now));
}

}  // namespace gpupool::quota_controller
