// `gpupoolctl approve NAMESPACE/NAME` (or `approve NAME -n NAMESPACE`;
// `kubectl gpupool approve ...` alike): an administrator approves a
// TenantQuota under a GPUPolicy with `approval: Manual`. Writes the approval
// record (quota/approval.h) through the status subresource, which tenants
// have no RBAC for; approves exactly the spec read, guarded by its
// resourceVersion. Talks to the cluster the flags of cluster_options.h
// select.
#pragma once

#include <CLI/CLI.hpp>

namespace gpupool::ctl {

void add_approve_command(CLI::App& app);

}  // namespace gpupool::ctl
