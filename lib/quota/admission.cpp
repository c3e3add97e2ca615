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

// The devices `p` takes beyond what `free` holds (resources `free` lists only).
Amounts beyond(const Amounts& devices, const Amounts* free) {
  Amounts out;
  if (free == nullptr) return out;
  for (const auto& [r, v] : devices) {
    auto it = free->find(r);
    if (it != free->end() && v > it->second) out[r] = v - std::max<std::int64_t>(0, it->second);
  }
  return out;
}

std::string pool_message(const std::string& pool, const Amounts& missing, const Amounts& free) {
  std::string out;
  for (const auto& [r, v] : missing) {
    out += (out.empty() ? "" : "; ") + std::string("pool ") + pool + " has " + format_amount(std::max<std::int64_t>(0, get(free, r))) +
           " " + r + " free, needs " + format_amount(v) + " more";
  }
  return out;
}

}  // namespace

AdmissionDecision decide_admissions(const std::vector<GatedPod>& pods, const std::vector<QuotaBudget>& budgets,
                                    const std::map<std::string, Amounts>& pool_free) {
  AdmissionDecision out;
  std::map<std::string, Amounts> free = pool_free;
  std::map<std::string, const QuotaBudget*> budget;
  std::map<std::string, Amounts> used;
  std::map<std::string, Amounts> promised;  // charges of pods short of their guarantee, by quota
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
  auto try_admit = [&](const GatedPod& p) {
    const std::string& q = p.quota;
    const QuotaBudget& b = *budget[q];
    const Amounts after = add(used[q], p.charge);
    auto pool = free.find(b.pool);
    const Amounts missing = beyond(p.devices, pool == free.end() ? nullptr : &pool->second);
    if (!fits_within(after, b.limit) && !p.charge.empty()) {
      out.waiting[p.key] = why_not(p, &b, used[q]);
    } else if (!missing.empty()) {
      out.waiting[p.key] = pool_message(b.pool, missing, pool->second);
      // Within the guarantee counting the quota's pods already short of it:
      // five waiting pods of a quota guaranteed two GPUs need two back, not five.
      const Amounts promised_after = add(after, promised[q]);
      if (fits_within(promised_after, b.granted.value_or(b.limit))) {
        out.short_of_guarantee.insert(p.key);
        out.shortfall[b.pool] = add(out.shortfall[b.pool], missing);
        promised[q] = add(promised[q], p.charge);
      }
    } else {
      used[q] = after;
      if (pool != free.end()) {
        for (const auto& [r, v] : p.devices) {
          if (auto it = pool->second.find(r); it != pool->second.end()) it->second -= v;
        }
      }
      out.admit.push_back(p.key);
    }
  };
  std::vector<const GatedPod*> borrowing;
  for (const auto& [q, list] : queue) push(q, 0);
  while (!heads.empty()) {
    const auto head = *heads.begin();
    heads.erase(heads.begin());
    const std::string& q = std::get<4>(head);
    const std::size_t i = std::get<5>(head);
    const GatedPod& p = *queue[q][i];
    const QuotaBudget& b = *budget[q];
    // Within the guarantee first: a pod that would borrow waits for the second round.
    if (b.granted && !p.charge.empty() && !fits_within(add(used[q], p.charge), *b.granted) &&
        fits_within(add(used[q], p.charge), b.limit)) {
      borrowing.push_back(&p);
    } else {
      try_admit(p);
    }
    push(q, i + 1);
  }
  for (const GatedPod* p : borrowing) try_admit(*p);
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
    if (Amounts over = above(q.used, q.granted); !over.empty()) borrowed[q.key] = std::move(over);
  }
  std::vector<const RunningPod*> candidates;
  for (const auto& p : running) {
    if (borrowed.count(p.quota)) candidates.push_back(&p);
  }
  std::sort(candidates.begin(), candidates.end(), [](const RunningPod* a, const RunningPod* b) {
    // Lowest priority, newest first; within one second (creationTimestamp's
    // resolution) the later name first (job-10 before job-9 is no better).
    return std::tuple(a->priority, -a->created) < std::tuple(b->priority, -b->created) ||
           (std::tuple(a->priority, -a->created) == std::tuple(b->priority, -b->created) && a->key > b->key);
  });
  std::vector<std::string> out;
  for (const RunningPod* p : candidates) {
    if (need.empty()) break;
    Amounts& b = borrowed[p->quota];
    // The resource a device resource is charged in for this pod: itself when
    // its quota counts it, else the normalised unit.
    auto currency = [&](const std::string& r) { return p->charge.count(r) ? r : std::string(kGpuUnit); };
    bool helps = false;
    for (const auto& [r, f] : p->frees) helps = helps || (f > 0 && need.count(r) && get(b, currency(r)) > 0);
    if (!helps) continue;
    out.push_back(p->key);
    for (const auto& [r, c] : p->charge) b[r] -= c;
    for (const auto& [r, f] : p->frees) {
      if (auto it = need.find(r); it != need.end()) {
        it->second -= f;
        if (it->second <= 0) need.erase(it);
      }
    }
  }
  return out;
}

std::vector<std::string> reclaim_for_lenders(const Amounts& shortfall, const std::map<std::string, Amounts>& held,
                                             const std::map<std::string, Amounts>& granted,
                                             const std::vector<RunningPod>& running) {
  Amounts need = shortfall;
  std::set<std::string> still_running;
  std::map<std::string, Amounts> used;  // quota -> what its running pods are charged
  for (const auto& p : running) {
    still_running.insert(p.key);
    used[p.quota] = add(used[p.quota], p.charge);
  }
  for (const auto& [pod, devices] : held) {
    if (still_running.contains(pod)) continue;
    for (const auto& [r, v] : devices) {
      if (auto it = need.find(r); it != need.end()) it->second -= v;
    }
  }
  std::vector<QuotaUsage> quotas;
  for (const auto& [key, g] : granted) quotas.push_back({key, g, used[key]});
  return choose_reclaim(need, quotas, running);
}

std::vector<std::string> reclaim_above(const Amounts& keep, const std::string& quota, std::vector<RunningPod> running) {
  Amounts used;
  for (auto& p : running) {
    used = add(used, p.charge);
    p.frees = p.charge;  // the need here is the quota's own charge
  }
  return choose_reclaim(above(used, keep), {{quota, keep, used}}, running);
}

}  // namespace gpupool::quota
