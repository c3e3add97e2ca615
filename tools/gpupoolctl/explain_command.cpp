#include "explain_command.h"

#include <chrono>
#include <iostream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cluster_options.h"
#include "cluster_reads.h"
#include "gpupool/explain/explain.h"
#include "gpupool/kube/errors.h"
#include "program.h"

namespace gpupool::ctl {
namespace {

struct ExplainArgs {
  std::vector<std::string> target;
  std::string agent_namespace = "gpupool-system";
  ClusterOptions cluster;
};

void append(std::vector<const rapidjson::Value*>& to, const Listed& from) {
  to.insert(to.end(), from.items.begin(), from.items.end());
}

int explain_pool(kube::Client& client, const std::string& name) {
  auto pool = get_object(client, {kGpuPools, "", name, ""});
  if (!pool) {
    std::cerr << "error: GPUPool " << name << " not found\n";
    return 1;
  }
  explain::PoolFacts f;
  f.pool = &*pool;
  Listed gpunodes = list_objects(client, {kGpuNodes, "", "", ""});
  for (const auto* g : gpunodes.items) {
    if (kube::string_at(*g, {"spec", "pool"}) == name) f.gpunodes.push_back(g);
  }
  kube::ListOptions members;
  members.label_selector = "gpupool.io/pool=" + name;
  Listed nodes = list_objects(client, {kube::core::nodes(), "", "", ""}, members);
  f.nodes = nodes.items;
  // Events of cluster-scoped objects are in "default" (runtime/event_recorder.h).
  Listed events = events_about(client, "default", name, "GPUPool");
  f.events = events.items;
  f.now = std::chrono::system_clock::now();
  f.program = program_name();
  std::cout << explain::explain_pool(f);
  return 0;
}

int explain_node(kube::Client& client, const std::string& name, const std::string& agent_namespace) {
  auto gpunode = get_object(client, {kGpuNodes, "", name, ""});
  if (!gpunode) {
    std::cerr << "error: GPUNode " << name
              << " not found: no agent has reported from a node of that name, and no GPUPool selects it\n";
    return 1;
  }
  explain::NodeFacts f;
  f.gpunode = &*gpunode;
  std::optional<rapidjson::Document> node, pool, lease;
  try {
    node = get_object(client, {kube::core::nodes(), "", name, ""});
  } catch (const kube::ApiError& e) {
    if (!e.is_forbidden()) throw;
  }
  f.node = node ? &*node : nullptr;
  if (const std::string p = kube::string_at(*gpunode, {"spec", "pool"}); !p.empty()) {
    pool = get_object(client, {kGpuPools, "", p, ""});
    f.pool = pool ? &*pool : nullptr;
  }
  f.lease_namespace = agent_namespace;
  try {
    lease = get_object(client, {kLeases, agent_namespace, "gpupool-agent-" + name, ""});
    f.lease = lease ? &*lease : nullptr;
    f.lease_checked = true;
  } catch (const kube::ApiError& e) {
    if (!e.is_forbidden()) throw;
  }
  Listed events = events_about(client, "default", name);  // the GPUNode's and the Node's
  f.events = events.items;
  f.now = std::chrono::system_clock::now();
  f.program = program_name();
  std::cout << explain::explain_node(f);
  return 0;
}

int explain_quota(kube::Client& client, const std::string& ns, const std::string& name) {
  auto quota = get_object(client, {kTenantQuotas, ns, name, ""});
  if (!quota) {
    std::cerr << "error: TenantQuota " << ns << "/" << name << " not found\n";
    return 1;
  }
  explain::QuotaFacts f;
  f.quota = &*quota;
  // The namespaces it covers: spec.namespaces, else its own.
  std::set<std::string> covered;
  if (quota->HasMember("spec") && (*quota)["spec"].IsObject()) {
    const auto& spec = (*quota)["spec"];
    if (auto it = spec.FindMember("namespaces"); it != spec.MemberEnd() && it->value.IsArray()) {
      for (const auto& n : it->value.GetArray()) {
        if (n.IsString()) covered.insert(n.GetString());
      }
    }
  }
  if (covered.empty()) covered.insert(ns);
  std::vector<Listed> keep;
  keep.reserve(2 * covered.size() + 1);
  for (const auto& n : covered) {
    keep.push_back(list_objects(client, {kube::core::pods(), n, "", ""}));
    append(f.pods, keep.back());
    keep.push_back(list_events(client, n, "reason=WaitingForQuota,regarding.kind=Pod"));
    append(f.events, keep.back());
  }
  keep.push_back(events_about(client, ns, name, "TenantQuota"));
  append(f.events, keep.back());
  f.now = std::chrono::system_clock::now();
  f.program = program_name();
  std::cout << explain::explain_tenantquota(f);
  return 0;
}

int run_explain(const ExplainArgs& args) {
  auto parsed = explain::parse_target(args.target);
  if (auto* error = std::get_if<std::string>(&parsed)) {
    std::cerr << "error: " << *error << "\n";
    return 2;
  }
  const auto& target = std::get<explain::Target>(parsed);
  const kube::RestConfig config = args.cluster.load();
  kube::Client client(config);
  switch (target.kind) {
    case explain::Kind::pool: return explain_pool(client, target.name);
    case explain::Kind::node: return explain_node(client, target.name, args.agent_namespace);
    case explain::Kind::tenantquota:
      return explain_quota(client, target.ns.empty() ? args.cluster.namespace_for(config) : target.ns, target.name);
  }
  return 2;
}

}  // namespace

void add_explain_command(CLI::App& app) {
  auto args = std::make_shared<ExplainArgs>();
  CLI::App* cmd = app.add_subcommand(
      "explain",
      "Say in plain words why a GPUPool, GPUNode or TenantQuota is not progressing (from its conditions, status, "
      "Events, the Node's cordon and taints, the agent's Lease, pods held at the quota gate)");
  cmd->add_option("target", args->target,
                  "KIND NAME or KIND/NAME; KIND: pool, node, tenantquota (tq); a TenantQuota in the namespace of -n "
                  "(else the context's) or as NAMESPACE/NAME")
      ->required();
  cmd->add_option("--agent-namespace", args->agent_namespace, "namespace of the node agents' Leases")
      ->capture_default_str();
  args->cluster.add_to(*cmd);
  const std::string p = "  " + program_name() + " explain ";
  cmd->footer("Examples:\n" + p + "pool a100\n" + p + "node/kwok-0\n" + p + "tenantquota -n team-a train\n" + p +
              "tq team-a/train");
  cmd->callback([args] { throw CLI::RuntimeError(run_explain(*args)); });
}

}  // namespace gpupool::ctl
