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

void MembershipBuilder::add(const std::string& node, const std::map<std::string, std::string>& labels) {
  std::vector<const PoolSelector*> best;
  for (const auto& p : pools_) {
    if (p.deleting || !api::selector_matches(p.node_selector, labels)) continue;
    if (best.empty() || p.priority > best.front()->priority) {
      best = {&p};
    } else if (p.priority == best.front()->priority) {
      best.push_back(&p);
    }
  }
  if (best.empty()) return;
  if (best.size() == 1) {
    out_.pool_of[node] = best.front()->name;
    out_.members[best.front()->name].push_back(node);
    return;
  }
  Conflict c;
  c.node = node;
  for (const auto* p : best) c.pools.push_back(p->name);
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
