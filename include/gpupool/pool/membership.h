// Which pool each node belongs to. A node is a member of the
// highest-priority pool whose nodeSelector matches it. When two or more
// pools share that highest priority, the node is in conflict: it is a member
// of none of them until the tie is resolved, and each of those pools reports
// the node and the other pools. Pools being deleted select nothing. Pure;
// deterministic whatever the input order.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gpupool/api/meta.h"

namespace gpupool::pool {

struct PoolSelector {
  std::string name;
  std::int32_t priority = 0;
  api::LabelSelector node_selector;
  bool deleting = false;
  bool operator==(const PoolSelector&) const = default;
};

struct NodeLabels {
  std::string name;
  std::map<std::string, std::string> labels;
};

struct Conflict {
  std::string node;
  std::vector<std::string> pools;  // sorted; all at the same, highest, priority
};

struct Membership {
  std::map<std::string, std::string> pool_of;      // node -> pool, members only
  std::map<std::string, Conflict> conflicts;       // node -> the tie
  // pool -> its member nodes, sorted (every pool given appears, maybe empty)
  std::map<std::string, std::vector<std::string>> members;
  // pool -> the conflicts it is part of, by node
  std::map<std::string, std::vector<Conflict>> pool_conflicts;
};

Membership resolve_membership(const std::vector<PoolSelector>& pools, const std::vector<NodeLabels>& nodes);

// Where a node with `labels` goes: the indexes in `pools` of the
// highest-priority pools that select it, ascending. One: its pool; several:
// a tie; none: no pool. A node's membership depends on nothing else, so a
// relabelled node whose placement is the same moves nothing.
using Placement = std::vector<std::uint32_t>;
Placement place_node(const std::vector<PoolSelector>& pools, const std::map<std::string, std::string>& labels);

// The same, a node at a time: so that a caller reading labels from its own
// objects holds one node's labels at once, not the fleet's (5,000 label maps
// were megabytes at the moment the controller's memory peaked).
class MembershipBuilder {
 public:
  // `pools` must outlive the builder (it is read on every add).
  explicit MembershipBuilder(const std::vector<PoolSelector>& pools);
  void add(const std::string& node, const std::map<std::string, std::string>& labels);
  // The same with the node's place_node() over these pools already known.
  void add_placed(const std::string& node, const Placement& placement);
  // What resolve_membership gives for the nodes added, in any order. Call once.
  Membership finish();

 private:
  const std::vector<PoolSelector>& pools_;
  Membership out_;
};

// The label that carries a node's pool, and the one that marks a conflict
// (its value: the tied pools joined with "_", which pool names cannot hold,
// cut to 63 characters).
inline constexpr const char* kPoolLabel = "gpupool.io/pool";
inline constexpr const char* kConflictLabel = "gpupool.io/pool-conflict";
std::string conflict_label_value(const Conflict& c);

}  // namespace gpupool::pool
