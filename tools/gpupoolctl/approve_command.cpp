#include "approve_command.h"

#include <chrono>
#include <iostream>
#include <memory>

#include "cluster_options.h"
#include "gpupool/api/codec.h"
#include "gpupool/kube/client.h"
#include "gpupool/kube/config.h"
#include "gpupool/kube/errors.h"
#include "gpupool/quota/approval.h"

namespace gpupool::ctl {
namespace {

struct ApproveArgs {
  std::string target;  // NAMESPACE/NAME, or NAME in the namespace of -n (else the context's)
  ClusterOptions cluster;
};

int approve(const ApproveArgs& args) {
  const auto slash = args.target.find('/');
  if (slash == 0 || (slash != std::string::npos && (slash + 1 == args.target.size() ||
                                                    args.target.find('/', slash + 1) != std::string::npos))) {
    std::cerr << "error: expected NAMESPACE/NAME or NAME (with -n NAMESPACE), got \"" << args.target << "\"\n";
    return 2;
  }
  const kube::RestConfig config = args.cluster.load();
  if (slash != std::string::npos && args.cluster.namespace_given() &&
      args.cluster.namespace_for(config) != args.target.substr(0, slash)) {
    std::cerr << "error: " << args.target << " names namespace " << args.target.substr(0, slash) << ", -n says "
              << args.cluster.namespace_for(config) << "\n";
    return 2;
  }
  const std::string ns = slash == std::string::npos ? args.cluster.namespace_for(config) : args.target.substr(0, slash);
  const std::string name = slash == std::string::npos ? args.target : args.target.substr(slash + 1);
  kube::Client client(config);
  const kube::ResourceRef ref{{"gpupool.io", "v1alpha1", "tenantquotas"}, ns, name, ""};
  rapidjson::Document doc;
  try {
    doc = client.get(ref);
  } catch (const kube::ApiError& e) {
    if (e.is_not_found()) {
      std::cerr << "error: TenantQuota " << ns << "/" << name << " not found\n";
      return 1;
    }
    throw;
  }
  auto decoded = api::decode_tenantquota(doc);
  if (!decoded.ok()) {
    std::cerr << "error: TenantQuota " << ns << "/" << name << " cannot be read: " << api::format_field_errors(decoded.errors) << "\n";
    return 1;
  }
  const api::Time now(std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now()));
  kube::ResourceRef status = ref;
  status.subresource = "status";
  try {
    client.patch(status, kube::PatchType::MergePatch, quota::approval_patch(*decoded.value, now));
  } catch (const kube::ApiError& e) {
    if (e.is_conflict()) {
      std::cerr << "error: TenantQuota " << ns << "/" << name << " changed while it was being approved; look at it again and rerun\n";
      return 1;
    }
    if (e.is_forbidden()) {
      std::cerr << "error: forbidden: approving needs patch on tenantquotas/status (the ClusterRole "
                   "gpupool-quota-approver, config/rbac), which tenants do not have: "
                << e.what() << "\n";
      return 1;
    }
    throw;
  }
  std::string what;
  for (const auto& [r, q] : decoded.value->spec.resources) what += (what.empty() ? "" : ", ") + q.quantity.text() + " " + r;
  std::cout << "approved TenantQuota " << ns << "/" << name << ": " << what << " (generation " << decoded.value->metadata.generation
            << ")\n";
  return 0;
}

}  // namespace

void add_approve_command(CLI::App& app) {
  auto args = std::make_shared<ApproveArgs>();
  CLI::App* cmd = app.add_subcommand("approve",
                                     "Approve a TenantQuota (approval: Manual) as it is now; a request raised later needs "
                                     "another approval");
  cmd->add_option("quota", args->target,
                  "NAMESPACE/NAME of the TenantQuota, or NAME in the namespace of -n (else the context's)")
      ->required();
  args->cluster.add_to(*cmd);
  cmd->callback([args] {
    const int code = approve(*args);
    if (code != 0) throw CLI::RuntimeError(code);
  });
}

}  // namespace gpupool::ctl
