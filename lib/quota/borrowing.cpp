#include "gpupool/quota/borrowing.h"

#include <algorithm>
#include <set>

namespace gpupool::quota {

Amounts borrowing_allowance(const Amounts& granted, const Amounts& tenant_limit,
                            const std::optional<Amounts>& approved_limit, const BorrowingRules& rules) {
  Amounts out;
  if (!rules.enabled) return out;
  std::set<std::string> resources;
  for (const auto& [r, v] : granted) resources.insert(r);
  for (const auto& [r, v] : tenant_limit) resources.insert(r);
  for (const auto& r : resources) {
    std::optional<std::int64_t> cap;
    if (rules.limit_percent > 0) {
      const auto g = granted.find(r);
      cap = (g == granted.end() ? 0 : g->second) * rules.limit_percent / 100;
    }
    std::int64_t allowance = 0;
    if (auto l = tenant_limit.find(r); l != tenant_limit.end()) {
      allowance = l->second;
      if (rules.manual_approval) {
        const auto a = approved_limit ? approved_limit->find(r) : Amounts::const_iterator{};
        allowance = std::min(allowance, approved_limit && a != approved_limit->end() ? a->second : 0);
      }
      if (cap) allowance = std::min(allowance, *cap);
    } else if (cap) {
      allowance = *cap;
    }
    allowance -= allowance % grain(r);
    if (allowance > 0) out[r] = allowance;
  }
  return out;
}

}  // namespace gpupool::quota
