#include "gpupool/quota/admission.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace gpupool::quota {
namespace {

std::int64_t get(const Amounts& a, const std::string& r) {
  auto it = a.find(r);
  return it == a.end() ? 0 : it->second;
}

// The largest used / limit over the quota's resources (limit 0 with use: 1).
long double dominant_share(const QuotaBudget& b, const Amounts& used) {
  long double share = 0;
  for (const auto& [r, u] : used) {
    const std::int64_t limit = get(b.limit, r);
    const long double s = limit > 0 ? static_cast<long double>(u) / static_cast<long double>(limit) : (u > 0 ? 1.0L : 0.0L);
    share = std::max(share, s);
  }
  return share / std::max<std::int32_t>(1, b.weight);
}

std::string why_not(const GatedPod& p, const QuotaBudget* b, const Amounts& used) {
  if (b == nullptr) return "no granted TenantQuota " + p.quota + " covers the pod";
  std::string out;
  for (const auto& [r, c] : p.charge) {
    if (c <= 0 || get(used, r) + c <= get(b->limit, r)) continue;
    out += (out.empty() ? "" : "; ") + std::string("needs ") + format_amount(c) + " " + r + ", TenantQuota " + b->key +
           " uses " + format_amount(get(used, r)) + " of " + format_amount(get(b->limit, r));
  }
  return out;
}

}  // namespace

AdmissionDecision decide_admissions(const std::vector<GatedPod>& pods, const std::vector<QuotaBudget>& budgets) {
  AdmissionDecision out;
  std::map<std::string, const QuotaBudget*> budget;
  std::map<std::string, Amounts> used;
  for (const auto& b : budgets) {
    budget[b.key] = &b;
    used[b.key] = b.used;
  }
  // Each quota's pods: priority, age, name.
  std::map<std::string, std::vector<const GatedPod*>> queue;
  for (const auto& p : pods) {
    if (!budget.count(p.quota)) {
      out.waiting[p.key] = why_not(p, nullptr, {});
      continue;
    }
    queue[p.quota].push_back(&p);
  }
  for (auto& [q, list] : queue) {
    std::sort(list.begin(), list.end(), [](const GatedPod* a, const GatedPod* b) {
      return std::tuple(-a->priority, a->created, a->key) < std::tuple(-b->priority, b->created, b->key);
    });
  }
  // Heads of the queues, best first.
  using Head = std::tuple<std::int32_t, long double, std::int64_t, std::string, std::string, std::size_t>;
  std::set<Head> heads;
  auto push = [&](const std::string& q, std::size_t i) {
    const auto& list = queue[q];
    if (i >= list.size()) return;
    const GatedPod* p = list[i];
    heads.emplace(-p->priority, dominant_share(*budget[q], used[q]), p->created, p->key, q, i);
  };
  for (const auto& [q, list] : queue) push(q, 0);
  while (!heads.empty()) {
    const auto head = *heads.begin();
    heads.erase(heads.begin());
    const std::string& q = std::get<4>(head);
    const std::size_t i = std::get<5>(head);
    const GatedPod& p = *queue[q][i];
    const Amounts after = add(used[q], p.charge);
    if (fits_within(after, budget[q]->limit) || p.charge.empty()) {
      used[q] = after;
      out.admit.push_back(p.key);
    } else {
      out.waiting[p.key] = why_not(p, budget[q], used[q]);
    }
    push(q, i + 1);
  }
  return out;
}

std::vector<std::string> choose_reclaim(const Amounts& needed, const std::vector<QuotaUsage>& quotas,
                                        const std::vector<RunningPod>& running) {
  Amounts need;
  for (const auto& [r, v] : needed) {
    if (v > 0) need[r] = v;
  }
  std::map<std::string, Amounts> borrowed;  // quota -> used above granted
  for (const auto& q : quotas) {
    for (const auto& [r, u] : q.used) {
      const std::int64_t over = u - get(q.granted, r);
      if (over > 0) borrowed[q.key][r] = over;
    }
  }
  std::vector<const RunningPod*> candidates;
  for (const auto& p : running) {
    if (borrowed.count(p.quota)) candidates.push_back(&p);
  }
  std::sort(candidates.begin(), candidates.end(), [](const RunningPod* a, const RunningPod* b) {
    return std::tuple(a->priority, -a->created, a->key) < std::tuple(b->priority, -b->created, b->key);
  });
  std::vector<std::string> out;
  for (const RunningPod* p : candidates) {
    if (need.empty()) break;
    Amounts& b = borrowed[p->quota];
    bool helps = false;
    for (const auto& [r, c] : p->charge) helps = helps || (c > 0 && need.count(r) && get(b, r) > 0);
    if (!helps) continue;
    out.push_back(p->key);
    for (const auto& [r, c] : p->charge) {
      b[r] -= c;
      if (auto it = need.find(r); it != need.end()) {
        it->second -= c;
        if (it->second <= 0) need.erase(it);
      }
    }
  }
  return out;
}

}  // namespace gpupool::quota
