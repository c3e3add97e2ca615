#include "gpupool/pool/membership.h"

#include <algorithm>

#include "gpupool/api/label_selector.h"

namespace gpupool::pool {

Membership resolve_membership(const std::vector<PoolSelector>& pools, const std::vector<NodeLabels>& nodes) {
  Membership out;
  for (const auto& p : pools) {
    out.members[p.name];
    out.pool_conflicts[p.name];
  }
  for (const auto& n : nodes) {
    std::vector<const PoolSelector*> best;
    for (const auto& p : pools) {
      if (p.deleting || !api::selector_matches(p.node_selector, n.labels)) continue;
      if (best.empty() || p.priority > best.front()->priority) {
        best = {&p};
      } else if (p.priority == best.front()->priority) {
        best.push_back(&p);
      }
    }
    if (best.empty()) continue;
    if (best.size() == 1) {
      out.pool_of[n.name] = best.front()->name;
      out.members[best.front()->name].push_back(n.name);
      continue;
    }
    Conflict c;
    c.node = n.name;
    for (const auto* p : best) c.pools.push_back(p->name);
    std::sort(c.pools.begin(), c.pools.end());
    c.pools.erase(std::unique(c.pools.begin(), c.pools.end()), c.pools.end());
    for (const auto& name : c.pools) out.pool_conflicts[name].push_back(c);
    out.conflicts[n.name] = std::move(c);
  }
  for (auto& [name, members] : out.members) std::sort(members.begin(), members.end());
  for (auto& [name, list] : out.pool_conflicts) {
    std::sort(list.begin(), list.end(), [](const Conflict& a, const Conflict& b) { return a.node < b.node; });
  }
  return out;
}

std::string conflict_label_value(const Conflict& c) {
  std::string v;
  for (const auto& p : c.pools) v += (v.empty() ? "" : "_") + p;
  if (v.size() > 63) v.resize(63);
  while (!v.empty() && (v.back() == '.' || v.back() == '-' || v.back() == '_')) v.pop_back();
  return v;
}

}  // namespace gpupool::pool
