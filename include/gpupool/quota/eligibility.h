// Whether a TenantQuota may ask its pool at all. Pure.
//
// - Its namespace must be one the pool's GPUPolicy lets request: in
//   quota.namespaces or matching quota.namespaceSelector; with neither set
//   (or no policy) every namespace may.
// - The namespaces it covers (spec.namespaces; empty: its own) must exist and
//   belong to its tenant: the namespace label gpupool.io/tenant, else the
//   namespace's own name.
// Anything else is a rejection with a reason a tenant can act on.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/api/gpupolicy.h"

namespace gpupool::quota {

inline constexpr const char* kTenantLabel = "gpupool.io/tenant";

// Namespace name -> its labels (the namespaces that exist).
using NamespaceLabels = std::map<std::string, std::map<std::string, std::string>>;

// The tenant of a namespace: its gpupool.io/tenant label, else its name.
std::string tenant_of(const std::string& ns, const NamespaceLabels& namespaces);

// nullopt: eligible; else why not.
std::optional<std::string> rejection(const std::string& quota_namespace, const std::vector<std::string>& covered,
                                     const std::string& pool, const std::string& policy_name,
                                     const api::QuotaRules* rules, const NamespaceLabels& namespaces);

}  // namespace gpupool::quota
