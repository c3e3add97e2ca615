// `gpupoolctl approve NAMESPACE/NAME`: an administrator approves a
// TenantQuota under a GPUPolicy with `approval: Manual`. Writes the approval
// record (quota/approval.h) through the status subresource, which tenants
// have no RBAC for; approves exactly the spec read, guarded by its
// resourceVersion. Talks to the cluster of --kubeconfig / --context (else
// $KUBECONFIG, in-cluster, ~/.kube/config).
#pragma once

#include <CLI/CLI.hpp>

namespace gpupool::ctl {

void add_approve_command(CLI::App& app);

}  // namespace gpupool::ctl
