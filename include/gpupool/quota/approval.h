// The approval record `gpupoolctl approve` writes into a TenantQuota's
// status (subresource status, which tenants have no RBAC for): exactly the
// spec it read (resources, borrowingLimit) and that spec's generation, so a
// request raised afterwards is not covered. Pure.
#pragma once

#include <string>

#include "gpupool/api/tenantquota.h"

namespace gpupool::quota {

api::ApprovalRecord approval_of(const api::TenantQuota& quota, const api::Time& now);

// The JSON merge patch for the status subresource: the record, guarded by the
// resourceVersion read (a quota changed in between is a conflict, not an
// approval of something unseen).
std::string approval_patch(const api::TenantQuota& quota, const api::Time& now);

}  // namespace gpupool::quota
