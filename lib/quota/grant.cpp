#include "gpupool/quota/grant.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <tuple>

namespace gpupool::quota {
namespace {

std::int64_t get(const Amounts& a, const std::string& r) {
  auto it = a.find(r);
  return it == a.end() ? 0 : it->second;
}

// Why a quota's demand is below its request, per resource.
enum class Cap { none, approval, tenant };

struct Work {
  const QuotaAsk* ask = nullptr;
  bool active = false;  // neither rejected, expired nor waiting for a first approval
  Amounts demand;
  std::map<std::string, Cap> capped;
  Amounts granted;
  bool reduced = false;
};

// Higher priority, then older, then by key: who is served (and keeps) first.
bool before(const Work& a, const Work& b) {
  return std::tuple(-a.ask->priority, a.ask->created, a.ask->key) < std::tuple(-b.ask->priority, b.ask->created, b.ask->key);
}

std::set<std::string> resources_of(const std::vector<Work>& work, const GrantRules& rules) {
  std::set<std::string> out;
  for (const auto& w : work) {
    for (const auto& [r, v] : w.ask->requested) out.insert(r);
  }
  for (const auto& [r, v] : rules.capacity) out.insert(r);
  return out;
}

std::int64_t available(const GrantRules& rules, const std::string& r) {
  return std::max<std::int64_t>(0, get(rules.capacity, r) - get(rules.reserve, r));
}

bool is_unit(const std::string& r) { return r == kGpuUnit; }

// What `devices` (device resources only) cost in gpupool.io/gpu.
std::int64_t unit_cost_of(const Amounts& devices, const GrantRules& rules) {
  std::int64_t total = 0;
  for (const auto& [r, v] : devices) {
    if (is_unit(r) || v <= 0) continue;
    auto it = rules.unit_costs.find(r);
    const std::int64_t cost = it == rules.unit_costs.end() ? kMicro : it->second;
    total += (v / kMicro) * cost + (v % kMicro) * cost / kMicro;
  }
  return total;
}

// Device resources first, gpupool.io/gpu last (it gets what the devices leave).
std::vector<std::string> in_grant_order(const std::set<std::string>& resources) {
  std::vector<std::string> out;
  for (const auto& r : resources) {
    if (!is_unit(r)) out.push_back(r);
  }
  for (const auto& r : resources) {
    if (is_unit(r)) out.push_back(r);
  }
  return out;
}

// The sum of the grants made so far, by resource.
Amounts granted_so_far(const std::vector<Work*>& order) {
  Amounts out;
  for (const Work* w : order) {
    for (const auto& [r, v] : w->granted) out[r] += v;
  }
  return out;
}

// Step 2: demand after approval and the tenant cap, in grains.
void set_demands(std::vector<Work*>& order, const GrantRules& rules, const std::set<std::string>& resources) {
  std::map<std::pair<std::string, std::string>, std::int64_t> tenant_left;  // (tenant, resource) -> cap left
  for (Work* w : order) {
    if (!w->active) continue;
    for (const std::string& r : resources) {
      std::int64_t d = std::max<std::int64_t>(0, get(w->ask->requested, r));
      if (d == 0) continue;
      if (rules.manual_approval && w->ask->approved && get(*w->ask->approved, r) < d) {
        d = std::max<std::int64_t>(0, get(*w->ask->approved, r));
        w->capped[r] = Cap::approval;
      }
      if (rules.max_per_tenant.count(r)) {
        auto [it, fresh] = tenant_left.emplace(std::pair(w->ask->tenant, r), get(rules.max_per_tenant, r));
        if (d > it->second) {
          d = it->second;
          w->capped[r] = Cap::tenant;
        }
        it->second -= d;
      }
      const std::int64_t g = grain(r);
      d -= d % g;
      if (d > 0) w->demand[r] = d;
    }
  }
}

// Step 4 for one resource and one priority level: `free` divided by weight.
// Returns what is left.
std::int64_t fair_fill(std::vector<Work*>& group, const std::string& r, std::int64_t free) {
  const std::int64_t g = grain(r);
  std::int64_t grains = free / g;
  std::map<Work*, std::int64_t> need, added;  // in grains
  for (Work* w : group) {
    const std::int64_t n = (get(w->demand, r) - get(w->granted, r)) / g;
    if (n > 0) need[w] = n;
  }
  // Whole proportional rounds while they give something.
  while (grains > 0 && !need.empty()) {
    std::int64_t weights = 0;
    for (const auto& [w, n] : need) weights += w->ask->weight;
    std::int64_t given = 0;
    for (auto& [w, n] : need) {
      const std::int64_t share = std::min(n, grains * w->ask->weight / weights);
      n -= share;
      added[w] += share;
      given += share;
    }
    grains -= given;
    for (auto it = need.begin(); it != need.end();) it = it->second == 0 ? need.erase(it) : std::next(it);
    if (given == 0) break;
  }
  // The remainder, a grain each: least added per weight, then older.
  if (grains > 0 && !need.empty()) {
    std::vector<Work*> order;
    for (const auto& [w, n] : need) order.push_back(w);
    std::sort(order.begin(), order.end(), [&](Work* a, Work* b) {
      const auto lhs = added[a] * b->ask->weight;
      const auto rhs = added[b] * a->ask->weight;
      if (lhs != rhs) return lhs < rhs;
      return before(*a, *b);
    });
    while (grains > 0 && !need.empty()) {
      bool gave = false;
      for (Work* w : order) {
        if (grains == 0) break;
        auto it = need.find(w);
        if (it == need.end()) continue;
        --it->second;
        ++added[w];
        --grains;
        gave = true;
        if (it->second == 0) need.erase(it);
      }
      if (!gave) break;
    }
  }
  for (const auto& [w, n] : added) {
    if (n > 0) w->granted[r] += n * g;
  }
  return free - (free / g - grains) * g;
}

// Millionths of a GPU one device of `r` costs (a device without a known cost: a whole GPU).
std::int64_t cost_of(const GrantRules& rules, const std::string& r) {
  auto it = rules.unit_costs.find(r);
  return it == rules.unit_costs.end() ? kMicro : it->second;
}

void grant_partial(std::vector<Work*>& order, const GrantRules& rules, const std::set<std::string>& resources) {
  const std::vector<std::string> ordered = in_grant_order(resources);
  const std::string unit(kGpuUnit);
  const bool coupled = rules.capacity.count(unit) > 0;  // devices also spend gpupool.io/gpu
  // Step 3: keep what is held, shrinking from the back of the order; the
  // unit's capacity is what the kept devices leave.
  Amounts free;
  for (const std::string& r : ordered) {
    std::int64_t avail = available(rules, r);
    if (is_unit(r)) avail = std::max<std::int64_t>(0, avail - unit_cost_of(granted_so_far(order), rules));
    std::int64_t kept = 0;
    for (Work* w : order) {
      if (!w->active) continue;
      const std::int64_t k = std::min(get(w->ask->held, r), get(w->demand, r));
      if (k > 0) w->granted[r] = k;
      kept += k;
    }
    for (auto it = order.rbegin(); it != order.rend() && kept > avail; ++it) {
      Work* w = *it;
      const std::int64_t have = get(w->granted, r);
      if (have == 0) continue;
      const std::int64_t g = grain(r);
      std::int64_t cut = std::min(have, kept - avail);
      cut = (cut + g - 1) / g * g;  // whole grains
      cut = std::min(cut, have);
      w->granted[r] = have - cut;
      kept -= cut;
      w->reduced = true;
    }
    free[r] = std::max<std::int64_t>(0, avail - kept);
  }
  // Step 4: the rest by priority across every resource; within a priority,
  // devices first (each also spends gpupool.io/gpu), then gpupool.io/gpu.
  for (std::size_t i = 0; i < order.size();) {
    std::vector<Work*> group;
    const std::int32_t p = order[i]->ask->priority;
    for (; i < order.size() && order[i]->ask->priority == p; ++i) {
      if (order[i]->active) group.push_back(order[i]);
    }
    for (const std::string& r : ordered) {
      if (is_unit(r) || !coupled) {
        free[r] = fair_fill(group, r, free[r]);
        continue;
      }
      // As many devices as both the device and the unit capacity allow.
      const std::int64_t cost = cost_of(rules, r);
      const std::int64_t affordable = cost > 0 ? free[unit] / cost * kMicro : free[r];
      const std::int64_t cap = std::min(free[r], affordable);
      const std::int64_t used = cap - fair_fill(group, r, cap);
      free[r] -= used;
      free[unit] = std::max<std::int64_t>(0, free[unit] - unit_cost_of({{r, used}}, rules));
    }
  }
}

void grant_whole(std::vector<Work*>& order, const GrantRules& rules, const std::set<std::string>& resources) {
  Amounts free;
  for (const std::string& r : resources) free[r] = available(rules, r);
  const std::string unit(kGpuUnit);
  // A demand as it weighs on the pool: its devices also cost gpupool.io/gpu.
  auto weight_of = [&](const Work* w) {
    Amounts d = w->demand;
    if (rules.capacity.count(unit)) d[unit] += unit_cost_of(w->demand, rules);
    return d;
  };
  auto take = [&](Work* w) {
    for (const auto& [r, v] : weight_of(w)) free[r] -= v;
    w->granted = w->demand;
  };
  // Keep whole grants held, in order, while they fit; a held one that no longer fits is dropped.
  std::vector<Work*> waiting;
  for (Work* w : order) {
    if (!w->active || w->demand.empty()) continue;
    if (fits_within(w->demand, w->ask->held)) {
      if (fits_within(weight_of(w), free)) {
        take(w);
      } else {
        w->reduced = true;
        waiting.push_back(w);
      }
    } else {
      waiting.push_back(w);
    }
  }
  // Then whole demands: priority, smaller demand per weight, age.
  auto size_per_weight = [](const Work* w) {
    long double total = 0;
    for (const auto& [r, v] : w->demand) total += static_cast<long double>(v) / static_cast<long double>(grain(r));
    return total / w->ask->weight;
  };
  std::sort(waiting.begin(), waiting.end(), [&](Work* a, Work* b) {
    if (a->ask->priority != b->ask->priority) return a->ask->priority > b->ask->priority;
    const auto sa = size_per_weight(a), sb = size_per_weight(b);
    if (sa != sb) return sa < sb;
    return before(*a, *b);
  });
  for (Work* w : waiting) {
    if (!w->reduced && fits_within(weight_of(w), free)) take(w);
  }
}

std::string describe(const Work& w, const GrantRules& rules, const PoolGrants& totals) {
  std::vector<std::string> parts;
  bool all = true;
  for (const auto& [r, requested] : w.ask->requested) {
    if (requested <= 0) continue;
    const std::int64_t got = get(w.granted, r);
    if (got >= requested) continue;
    all = false;
    const std::string numbers = format_amount(got) + " of " + format_amount(requested) + " " + r;
    auto cap = w.capped.find(r);
    if (cap != w.capped.end() && cap->second == Cap::approval && got >= get(w.demand, r)) {
      parts.push_back("granted " + numbers + ": " + format_amount(get(*w.ask->approved, r)) +
                      " approved; an administrator approves the rest with `gpupoolctl approve " + w.ask->key + "`");
    } else if (cap != w.capped.end() && cap->second == Cap::tenant && got >= get(w.demand, r)) {
      parts.push_back("granted " + numbers + ": maxPerTenant allows " + format_amount(get(rules.max_per_tenant, r)) +
                      " per tenant and tenant " + w.ask->tenant + " asks more");
    } else if (!rules.capacity.count(r)) {
      parts.push_back("granted " + numbers + ": pool " + rules.pool + " has no " + r);
    } else {
      parts.push_back("granted " + numbers + ": pool " + rules.pool + " has " + format_amount(get(totals.unreserved, r)) +
                      " unreserved" + (rules.partial ? "" : " and partial grants are off"));
    }
  }
  std::string out;
  if (all) {
    for (const auto& [r, v] : w.granted) out += (out.empty() ? "granted " : ", ") + format_amount(v) + " " + r;
    if (out.empty()) out = "nothing requested";
  } else {
    for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  }
  if (w.reduced) out = "the pool's capacity fell below the grants: " + out;
  return out;
}

}  // namespace

PoolGrants decide_grants(const std::vector<QuotaAsk>& asks, const GrantRules& rules) {
  std::vector<Work> work(asks.size());
  for (std::size_t i = 0; i < asks.size(); ++i) {
    work[i].ask = &asks[i];
    work[i].active = !asks[i].rejected && !asks[i].expired && (!rules.manual_approval || asks[i].approved.has_value());
  }
  std::vector<Work*> order;
  for (auto& w : work) order.push_back(&w);
  std::sort(order.begin(), order.end(), [](Work* a, Work* b) { return before(*a, *b); });
  const std::set<std::string> resources = resources_of(work, rules);

  set_demands(order, rules, resources);
  if (rules.partial) {
    grant_partial(order, rules, resources);
  } else {
    grant_whole(order, rules, resources);
  }

  PoolGrants out;
  for (auto& w : work) {
    for (auto it = w.granted.begin(); it != w.granted.end();) it = it->second == 0 ? w.granted.erase(it) : std::next(it);
    out.granted = add(out.granted, w.granted);
  }
  // What is left, in each resource's own terms: devices are also limited by
  // the gpupool.io/gpu they would spend.
  const std::string unit(kGpuUnit);
  const std::int64_t unit_left = std::max<std::int64_t>(
      0, available(rules, unit) - get(out.granted, unit) - unit_cost_of(out.granted, rules));
  for (const auto& [r, c] : rules.capacity) {
    std::int64_t left = is_unit(r) ? unit_left : available(rules, r) - get(out.granted, r);
    if (!is_unit(r) && rules.capacity.count(unit) && cost_of(rules, r) > 0) {
      left = std::min(left, unit_left / cost_of(rules, r) * kMicro);
    }
    out.unreserved[r] = std::max<std::int64_t>(0, left);
  }
  for (const auto& w : work) {
    QuotaGrant g;
    g.key = w.ask->key;
    g.granted = w.granted;
    g.capacity_reduced = w.reduced;
    if (w.ask->rejected) {
      g.outcome = GrantOutcome::rejected;
      g.message = *w.ask->rejected;
    } else if (w.ask->expired) {
      g.outcome = GrantOutcome::expired;
      g.message = "expired: the guarantee ended and its capacity went back to pool " + rules.pool;
    } else if (!w.active) {
      g.outcome = GrantOutcome::waiting_for_approval;
      g.message = "waiting for an administrator: `gpupoolctl approve " + w.ask->key + "`";
    } else {
      bool all = true;
      for (const auto& [r, v] : w.ask->requested) all = all && get(w.granted, r) >= v;
      g.outcome = all ? GrantOutcome::granted : w.granted.empty() ? GrantOutcome::pending : GrantOutcome::partially_granted;
      g.message = describe(w, rules, out);
    }
    out.quotas.push_back(std::move(g));
  }
  return out;
}

}  // namespace gpupool::quota
