#include "rollout_figures.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <set>

#include "gpupool/kube/json_access.h"

namespace gpupool::bench {
namespace {

std::optional<std::int64_t> int_at(const rapidjson::Value& v, std::initializer_list<std::string_view> path) {
  const rapidjson::Value* x = kube::value_at(v, path);
  if (x == nullptr || !x->IsInt64()) return std::nullopt;
  return x->GetInt64();
}

}  // namespace

std::optional<int> resolve_max_unavailable(const std::string& value, int members) {
  const bool percent = !value.empty() && value.back() == '%';
  const std::string digits = percent ? value.substr(0, value.size() - 1) : value;
  int n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || n < 0) return std::nullopt;
  if (percent) {
    if (n > 100) return std::nullopt;
    n = static_cast<int>(static_cast<std::int64_t>(n) * members / 100);
  }
  return std::max(n, 1);
}

int rollout_waves(int members, int limit) {
  if (members <= 0) return 0;
  const int k = std::max(limit, 1);
  return (members + k - 1) / k;
}

double ideal_rollout_seconds(const std::vector<PoolRolloutShape>& pools, double install_s) {
  int waves = 0;
  for (const auto& p : pools) waves = std::max(waves, rollout_waves(p.members, p.limit));
  return waves * install_s;
}

std::optional<double> rollout_overhead(double measured_s, double ideal_s) {
  if (ideal_s <= 0) return std::nullopt;
  return measured_s / ideal_s - 1;
}

std::map<std::string, WorstMoment> worst_disruption(std::vector<DisruptionEvent> events,
                                                    const std::map<std::string, std::string>& pool_of) {
  std::stable_sort(events.begin(), events.end(),
                   [](const DisruptionEvent& a, const DisruptionEvent& b) { return a.resource_version < b.resource_version; });
  std::map<std::string, WorstMoment> worst;
  std::map<std::string, std::set<std::string>> now;  // pool -> nodes disrupted now
  struct Flags {
    bool granted = false, cordoned = false;
  };
  std::map<std::string, Flags> flags;
  for (const auto& [node, pool] : pool_of) worst[pool];
  for (const auto& e : events) {
    const auto pool = pool_of.find(e.node);
    if (pool == pool_of.end()) continue;
    if (e.kind == DisruptionEvent::Kind::reported) continue;
    auto& f = flags[e.node];
    (e.kind == DisruptionEvent::Kind::granted ? f.granted : f.cordoned) = e.on;
    auto& set = now[pool->second];
    if (f.granted || f.cordoned) {
      set.insert(e.node);
    } else {
      set.erase(e.node);
    }
    auto& w = worst[pool->second];
    if (static_cast<int>(set.size()) > w.disrupted) {
      w.disrupted = static_cast<int>(set.size());
      w.resource_version = e.resource_version;
      w.nodes.assign(set.begin(), set.end());
    }
  }
  return worst;
}

void time_by_commit(std::vector<DisruptionEvent>& events) {
  std::stable_sort(events.begin(), events.end(),
                   [](const DisruptionEvent& a, const DisruptionEvent& b) { return a.resource_version < b.resource_version; });
  double earliest = std::numeric_limits<double>::infinity();
  for (auto e = events.rbegin(); e != events.rend(); ++e) {
    earliest = std::min(earliest, e->seen_s);
    e->seen_s = earliest;
  }
}

PhaseDelays phase_delays(std::vector<DisruptionEvent> events, const std::map<std::string, std::string>& pool_of) {
  time_by_commit(events);
  struct Mean {
    double sum = 0;
    int n = 0;
    void add(double d) { sum += d, ++n; }
    std::optional<double> get() const { return n ? std::optional(sum / n) : std::nullopt; }
  };
  Mean gc, cu, uw, wg, ur, rw;
  struct NodeState {
    bool granted = false, cordoned = false;
    std::optional<double> granted_at, cordoned_at, uncordoned_at, reported_at;
  };
  std::map<std::string, NodeState> nodes;
  std::map<std::string, double> last_withdrawal;  // pool -> when its last permission went
  for (const auto& e : events) {
    const auto pool = pool_of.find(e.node);
    if (pool == pool_of.end()) continue;
    auto& n = nodes[e.node];
    if (e.kind == DisruptionEvent::Kind::reported) {
      if (e.on && n.granted && n.cordoned_at && !n.reported_at) {
        n.reported_at = e.seen_s;
        if (n.uncordoned_at) ur.add(e.seen_s - *n.uncordoned_at);
      }
    } else if (e.kind == DisruptionEvent::Kind::granted) {
      if (e.on && !n.granted) {
        n = NodeState{true, n.cordoned, e.seen_s, std::nullopt, std::nullopt, std::nullopt};
        if (auto w = last_withdrawal.find(pool->second); w != last_withdrawal.end()) {
          wg.add(e.seen_s - w->second);
          last_withdrawal.erase(w);
        }
      } else if (!e.on && n.granted) {
        n.granted = false;
        if (n.uncordoned_at) uw.add(e.seen_s - *n.uncordoned_at);
        if (n.reported_at) rw.add(e.seen_s - *n.reported_at);
        last_withdrawal[pool->second] = e.seen_s;
      }
    } else if (e.on && !n.cordoned) {
      n.cordoned = true;
      if (n.granted && n.granted_at && !n.cordoned_at) {
        n.cordoned_at = e.seen_s;
        gc.add(e.seen_s - *n.granted_at);
      }
    } else if (!e.on && n.cordoned) {
      n.cordoned = false;
      if (n.granted && n.cordoned_at && !n.uncordoned_at) {
        n.uncordoned_at = e.seen_s;
        cu.add(e.seen_s - *n.cordoned_at);
      }
    }
  }
  return {gc.get(), cu.get(), uw.get(), wg.get(), ur.get(), rw.get()};
}

bool reports_up_to_date(const rapidjson::Value& gpunode) {
  const auto generation = int_at(gpunode, {"metadata", "generation"});
  if (!generation || int_at(gpunode, {"status", "observedGeneration"}) != generation) return false;
  const rapidjson::Value* conditions = kube::value_at(gpunode, {"status", "conditions"});
  if (conditions == nullptr || !conditions->IsArray()) return false;
  auto holds = [&](std::string_view type) {
    for (const auto& c : conditions->GetArray()) {
      if (kube::string_of(kube::value_at(c, {"type"})) != type) continue;
      return kube::string_of(kube::value_at(c, {"status"})) == "True" &&
             int_at(c, {"observedGeneration"}) == generation;
    }
    return false;
  };
  return holds("DriverReady") && holds("PartitionReady");
}

bool rollout_complete(const rapidjson::Value& pool, const std::string& target_version) {
  const auto generation = int_at(pool, {"metadata", "generation"});
  const auto observed = int_at(pool, {"status", "observedGeneration"});
  if (!generation || observed != generation) return false;
  if (kube::string_of(kube::value_at(pool, {"status", "rollout", "targetVersion"})) != target_version) return false;
  const auto total = int_at(pool, {"status", "nodes", "total"});
  const auto updated = int_at(pool, {"status", "rollout", "updated"});
  if (!total || *total <= 0 || updated != total) return false;
  if (int_at(pool, {"status", "rollout", "pending"}).value_or(0) != 0) return false;
  if (int_at(pool, {"status", "rollout", "failed"}).value_or(0) != 0) return false;
  const rapidjson::Value* conditions = kube::value_at(pool, {"status", "conditions"});
  if (conditions == nullptr || !conditions->IsArray()) return false;
  for (const auto& c : conditions->GetArray()) {
    if (kube::string_of(kube::member(c, "type")) != "Progressing") continue;
    return kube::string_of(kube::member(c, "reason")) == "Complete" && int_at(c, {"observedGeneration"}) == generation;
  }
  return false;
}

}  // namespace gpupool::bench
