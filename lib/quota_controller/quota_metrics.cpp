#include "gpupool/quota_controller/quota_metrics.h"

namespace gpupool::quota_controller {

QuotaMetrics::QuotaMetrics(metrics::Registry& r) {
  const std::vector<std::string> labels = {"namespace", "name", "resource"};
  granted_ = &r.gauge_function_family("gpupool_tenantquota_granted", "What the TenantQuota is guaranteed, in the resource's unit", labels);
  used_ = &r.gauge_function_family("gpupool_tenantquota_used",
                                   "Requests of the TenantQuota's admitted pods (past the gate, not finished)", labels);
  waiting_ = &r.gauge_function_family("gpupool_tenantquota_waiting", "Requests of the TenantQuota's pods held at the gate", labels);
  borrowed_ = &r.gauge_function_family("gpupool_tenantquota_borrowed", "The TenantQuota's use above its grant", labels);
  info_ = &r.gauge_function_family("gpupool_tenantquota_info", "The TenantQuota's pool (value 1)", {"namespace", "name", "pool"});
}

void QuotaMetrics::publish(const std::map<std::string, QuotaFigures>& quotas) {
  decltype(shown_) now;
  for (const auto& [key, f] : quotas) {
    const auto slash = key.find('/');
    const std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
    std::vector<std::string> info{ns, name, f.pool};
    info_->with(info).set([] { return 1.0; });
    now.emplace(info_, std::move(info));
    for (auto [family, amounts] : {std::pair{granted_, &f.granted}, std::pair{used_, &f.used},
                                   std::pair{waiting_, &f.waiting}, std::pair{borrowed_, &f.borrowed}}) {
      for (const auto& [resource, micro] : *amounts) {
        std::vector<std::string> labels{ns, name, resource};
        const double value = static_cast<double>(micro) / static_cast<double>(quota::kMicro);
        family->with(labels).set([value] { return value; });
        now.emplace(family, std::move(labels));
      }
    }
  }
  for (const auto& [family, labels] : shown_) {
    if (!now.contains({family, labels})) family->with(labels).set({});
  }
  shown_ = std::move(now);
}

}  // namespace gpupool::quota_controller
