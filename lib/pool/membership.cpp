#include "gpupool/pool/membership.h"

#include <algorithm>

#include "gpupool/api/label_selector.h"

namespace gpupool::pool {

MembershipBuilder::MembershipBuilder(const std::vector<PoolSelector>& pools) : pools_(pools) {
  for (const auto& p : pools_) {
    out_.members[p.name];
    out_.pool_conflicts[p.name];
  }
}

Placement place_node(const std::vector<PoolSelector>& pools, const std::map<std::string, std::string>& labels) {
  Placement best;
  for (std::uint32_t i = 0; i < pools.size(); ++i) {
    const PoolSelector& p = pools[i];
    if (p.deleting || !api::selector_matches(p.node_selector, labels)) continue;
    if (best.empty() || p.priority > pools[best.front()].priority) {
      best = {i};
    } else if (p.priority == pools[best.front()].priority) {
      best.push_back(i);
    }
  }
  return best;
}

void MembershipBuilder::add(const std::string& node, const std::map<std::string, std::string>& labels) {
  add_placed(node, place_node(pools_, labels));
}

void MembershipBuilder::add_placed(const std::string& node, const Placement& placement) {
  if (placement.empty()) return;
  if (placement.size() == 1) {
    const std::string& pool = pools_.at(placement.front()).name;
    out_.pool_of[node] = pool;
    out_.members[pool].push_back(node);
    return;
  }
  Conflict c;
  c.node = node;
  for (const auto i : placement) c.pools.push_back(pools_.at(i).name);
  std::sort(c.pools.begin(), c.pools.end());
  c.pools.erase(std::unique(c.pools.begin(), c.pools.end()), c.pools.end());
  for (const auto& name : c.pools) out_.pool_conflicts[name].push_back(c);
  out_.conflicts[node] = std::move(c);
}

Membership MembershipBuilder::finish() {
  for (auto& [name, members] : out_.members) std::sort(members.begin(), members.end());
  for (auto& [name, list] : out_.pool_conflicts) {
    std::sort(list.begin(), list.end(), [](const Conflict& a, const Conflict& b) { return a.node < b.node; });
  }
  return std::move(out_);
}

Membership resolve_membership(const std::vector<PoolSelector>& pools, const std::vector<NodeLabels>& nodes) {
  MembershipBuilder builder(pools);
  for (const auto& n : nodes) builder.add(n.name, n.labels);
  return builder.finish();
}

std::string conflict_label_value(const Conflict& c) {
  std::string v;
  for (const auto& p : c.pools) v += (v.empty() ? "" : "_") + p;
  if (v.size() > 63) v.resize(63);
  while (!v.empty() && (v.back() == '.' || v.back() == '-' || v.back() == '_')) v.pop_back();
  return v;
}

}  // namespace gpupool::pool
