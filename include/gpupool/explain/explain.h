// `gpupoolctl explain` (`kubectl gpupool explain`): why a GPUPool, a GPUNode
// or a TenantQuota is not progressing, in plain words. Pure: built only from
// what the controller and the agents already wrote (conditions, status
// counts, operations, Events, the Node's cordon and taints, the agent's
// Lease, pods held at the quota gate); nothing is decided again here. When
// all is well the text is one line.
#pragma once

#include <rapidjson/document.h>

#include <chrono>
#include <string>
#include <variant>
#include <vector>

namespace gpupool::explain {

using TimePoint = std::chrono::system_clock::time_point;

enum class Kind { pool, node, tenantquota };

// What to explain: `KIND NAME` or `KIND/NAME`; for a TenantQuota also
// `KIND NAMESPACE/NAME` or `KIND/NAMESPACE/NAME`. Kinds: pool (gpupool,
// gpupools, gpool, pools), node (gpunode, gpunodes, gnode, nodes),
// tenantquota (tenantquotas, tq, quota, quotas), case-insensitive.
struct Target {
  Kind kind = Kind::pool;
  std::string ns;  // tenantquota only; empty: not given (the caller's default)
  std::string name;
};
// The target, or a message saying what is wrong with the arguments.
std::variant<Target, std::string> parse_target(const std::vector<std::string>& args);

struct PoolFacts {
  const rapidjson::Value* pool = nullptr;                // required
  std::vector<const rapidjson::Value*> gpunodes;         // the members' GPUNodes (spec.pool == the pool)
  std::vector<const rapidjson::Value*> nodes;            // the members' Nodes (label gpupool.io/pool)
  std::vector<const rapidjson::Value*> events;           // events.k8s.io/v1 Events regarding the pool
  TimePoint now;
  std::string program = "gpupoolctl";                    // for the commands it suggests
};
std::string explain_pool(const PoolFacts& facts);

struct NodeFacts {
  const rapidjson::Value* gpunode = nullptr;  // required
  const rapidjson::Value* node = nullptr;     // the Node; null: it does not exist
  const rapidjson::Value* pool = nullptr;     // the GPUPool of spec.pool; null: none or not found
  // The agent's Lease gpupool-agent-<node> in `lease_namespace`; null with
  // lease_checked: there is none; lease_checked false: not looked at (no RBAC).
  const rapidjson::Value* lease = nullptr;
  bool lease_checked = false;
  std::string lease_namespace = "gpupool-system";
  std::vector<const rapidjson::Value*> events;  // regarding the GPUNode or the Node
  TimePoint now;
  std::string program = "gpupoolctl";
};
std::string explain_node(const NodeFacts& facts);

struct QuotaFacts {
  const rapidjson::Value* quota = nullptr;  // required
  // Pods in the namespaces the quota covers; those carrying the scheduling
  // gate gpupool.io/quota are the ones waiting.
  std::vector<const rapidjson::Value*> pods;
  // Events regarding the quota or those pods (WaitingForQuota says why a pod waits).
  std::vector<const rapidjson::Value*> events;
  TimePoint now;
  std::string program = "gpupoolctl";
};
std::string explain_tenantquota(const QuotaFacts& facts);

}  // namespace gpupool::explain
