#include "status_command.h"

#include <chrono>
#include <iostream>
#include <memory>

#include "cluster_options.h"
#include "cluster_reads.h"
#include "gpupool/explain/status_tables.h"

namespace gpupool::ctl {
namespace {

struct StatusArgs {
  ClusterOptions cluster;
};

int run_status(const StatusArgs& args) {
  const kube::RestConfig config = args.cluster.load();
  const std::string quota_ns = args.cluster.all_namespaces() ? "" : args.cluster.namespace_for(config);
  kube::Client client(config);
  Listed pools = list_objects(client, {kGpuPools, "", "", ""});
  Listed nodes = list_objects(client, {kGpuNodes, "", "", ""});
  Listed quotas = list_objects(client, {kTenantQuotas, quota_ns, "", ""});
  explain::StatusInput in;
  in.pools = {pools.items, pools.error};
  in.nodes = {nodes.items, nodes.error};
  in.quotas = {quotas.items, quotas.error};
  in.quota_namespace = quota_ns;
  in.now = std::chrono::system_clock::now();
  std::cout << explain::format_status(in);
  return 0;
}

}  // namespace

void add_status_command(CLI::App& app) {
  auto args = std::make_shared<StatusArgs>();
  CLI::App* cmd = app.add_subcommand(
      "status",
      "GPUPools (nodes, rollout, capacity), GPUNodes and TenantQuotas as tables, with the reason for anything "
      "waiting or failed");
  args->cluster.add_to(*cmd, /*all_namespaces=*/true);
  cmd->callback([args] { throw CLI::RuntimeError(run_status(*args)); });
}

}  // namespace gpupool::ctl
