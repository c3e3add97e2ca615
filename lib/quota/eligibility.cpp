#include "gpupool/quota/eligibility.h"

#include <algorithm>

#include "gpupool/api/label_selector.h"

namespace gpupool::quota {

std::string tenant_of(const std::string& ns, const NamespaceLabels& namespaces) {
  auto it = namespaces.find(ns);
  if (it != namespaces.end()) {
    auto label = it->second.find(kTenantLabel);
    if (label != it->second.end() && !label->second.empty()) return label->second;
  }
  return ns;
}

std::optional<std::string> rejection(const std::string& quota_namespace, const std::vector<std::string>& covered,
                                     const std::string& pool, const std::string& policy_name,
                                     const api::QuotaRules* rules, const NamespaceLabels& namespaces) {
  if (rules && (rules->namespace_selector || !rules->namespaces.empty())) {
    const bool by_name = std::find(rules->namespaces.begin(), rules->namespaces.end(), quota_namespace) != rules->namespaces.end();
    bool by_selector = false;
    if (rules->namespace_selector) {
      auto it = namespaces.find(quota_namespace);
      by_selector = it != namespaces.end() && api::selector_matches(*rules->namespace_selector, it->second);
    }
    if (!by_name && !by_selector) {
      return "namespace " + quota_namespace + " may not request quota from pool " + pool + ": GPUPolicy " + policy_name +
             " allows only the namespaces in spec.quota.namespaces or matching spec.quota.namespaceSelector";
    }
  }
  const std::string tenant = tenant_of(quota_namespace, namespaces);
  for (const std::string& ns : covered) {
    if (!namespaces.count(ns)) return "spec.namespaces: namespace " + ns + " does not exist";
    const std::string other = tenant_of(ns, namespaces);
    if (other != tenant) {
      return "spec.namespaces: namespace " + ns + " belongs to tenant " + other + ", not to tenant " + tenant +
             " (label " + kTenantLabel + ")";
    }
  }
  return std::nullopt;
}

}  // namespace gpupool::quota
