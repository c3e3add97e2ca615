#include "gpupool/explain/gate_tables.h"

#include <algorithm>
#include <map>
#include <optional>

#include "gpupool/quota/gpu_resources.h"
#include "json_read.h"

namespace gpupool::explain {

using namespace detail;

namespace {

constexpr const char* kGate = "gpupool.io/quota";
constexpr const char* kNotePrefix = "waiting at the gate gpupool.io/quota: ";

bool held_at_gate(const Value& pod) {
  for (const Value* g : elements(at(&pod, {"spec", "schedulingGates"}))) {
    if (str(g, {"name"}) == kGate) return true;
  }
  return false;
}

// "nvidia.com/gpu=2,nvidia.com/mig-1g.10gb=1": limits, else requests, summed
// over the containers when both are whole numbers.
std::string requests(const Value& pod) {
  std::map<std::string, std::string> sums;
  for (const Value* c : elements(at(&pod, {"spec", "containers"}))) {
    std::map<std::string, std::string> mine;
    for (const char* field : {"requests", "limits"}) {  // limits win
      for (const auto& [name, q] : entries(at(c, {"resources", field}))) {
        if (quota::is_gpu_resource(name)) mine[name] = quantity(q);
      }
    }
    for (const auto& [name, q] : mine) {
      auto& sum = sums[name];
      const bool whole = !q.empty() && std::all_of(q.begin(), q.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
      const bool sum_whole = sum.empty() || std::all_of(sum.begin(), sum.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
      if (sum.empty()) {
        sum = q;
      } else if (whole && sum_whole && q.size() < 12 && sum.size() < 12) {
        sum = std::to_string(std::stoll(sum) + std::stoll(q));
      } else {
        sum += "+" + q;
      }
    }
  }
  std::vector<std::string> parts;
  for (const auto& [name, q] : sums) parts.push_back(name + "=" + q);
  return parts.empty() ? "-" : join(parts, ",");
}

std::optional<TimePoint> event_time(const Value& e) {
  for (auto path : {std::initializer_list<const char*>{"series", "lastObservedTime"}, {"eventTime"},
                    {"deprecatedLastTimestamp"}, {"metadata", "creationTimestamp"}}) {
    if (auto t = time_at(&e, path)) return t;
  }
  return std::nullopt;
}

bool current(const Value& object, const Condition& c) {
  const auto generation = integer(&object, {"metadata", "generation"}, 0);
  return generation == 0 || c.observed_generation == 0 || c.observed_generation >= generation;
}

}  // namespace

std::size_t gated_pod_count(const std::vector<const Value*>& pods) {
  return static_cast<std::size_t>(
      std::count_if(pods.begin(), pods.end(), [](const Value* p) { return p != nullptr && held_at_gate(*p); }));
}

Table gated_pods_table(const std::vector<const Value*>& pods, const std::vector<const Value*>& events, TimePoint now) {
  // The newest WaitingForQuota note per pod.
  std::map<std::string, std::pair<TimePoint, std::string>> notes;
  for (const Value* e : events) {
    if (e == nullptr || str(e, {"reason"}) != "WaitingForQuota" || str(e, {"regarding", "kind"}) != "Pod") continue;
    const std::string key = str(e, {"regarding", "namespace"}) + "/" + str(e, {"regarding", "name"});
    const TimePoint t = event_time(*e).value_or(TimePoint{});
    auto& slot = notes[key];
    if (slot.second.empty() || t >= slot.first) {
      std::string note = str(e, {"note"});
      if (note.rfind(kNotePrefix, 0) == 0) note = note.substr(std::char_traits<char>::length(kNotePrefix));
      slot = {t, note};
    }
  }
  struct Row {
    TimePoint created;
    std::vector<std::string> cells;
  };
  std::vector<Row> rows;
  for (const Value* p : pods) {
    if (p == nullptr || !held_at_gate(*p)) continue;
    const std::string ns = str(p, {"metadata", "namespace"});
    const std::string name = str(p, {"metadata", "name"});
    const auto created = time_at(p, {"metadata", "creationTimestamp"});
    std::string reason = "-";
    if (auto it = notes.find(ns + "/" + name); it != notes.end() && !it->second.second.empty()) {
      reason = shorten(it->second.second, kReasonWidth);
    }
    rows.push_back({created.value_or(TimePoint{}),
                    {ns, name, requests(*p), created ? age(now, *created) : "-", reason}});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.created != b.created ? a.created < b.created : a.cells[0] + "/" + a.cells[1] < b.cells[0] + "/" + b.cells[1];
  });
  Table t{{"NAMESPACE", "NAME", "REQUESTS", "WAITING", "REASON"}, {}};
  for (auto& r : rows) t.rows.push_back(std::move(r.cells));
  return t;
}

Settled settled(const std::vector<const Value*>& pools, const std::vector<const Value*>& quotas, std::size_t max) {
  Settled out;
  std::vector<std::string> all;
  if (pools.empty()) all.push_back("no GPUPools yet");
  std::vector<const Value*> ps(pools), qs(quotas);
  auto by_name = [](const Value* a, const Value* b) { return object_name(*a) < object_name(*b); };
  std::sort(ps.begin(), ps.end(), by_name);
  std::sort(qs.begin(), qs.end(), by_name);
  for (const Value* p : ps) {
    const std::string what = "GPUPool " + object_name(*p);
    const auto ready = condition(*p, "Ready");
    const Value* nodes = at(p, {"status", "nodes"});
    const auto total = integer(nodes, {"total"}), ready_nodes = integer(nodes, {"ready"});
    const auto updating = integer(nodes, {"updating"}), failed = integer(nodes, {"failed"});
    if (!ready) {
      all.push_back(what + ": no status yet");
    } else if (!ready->is_true() || !current(*p, *ready)) {
      all.push_back(what + ": " + (ready->reason.empty() ? "not Ready" : ready->reason) + " (" +
                    std::to_string(ready_nodes) + "/" + std::to_string(total) + " nodes ready)");
    } else if (total == 0) {
      all.push_back(what + ": no member nodes");
    } else if (ready_nodes != total || updating != 0 || failed != 0) {
      all.push_back(what + ": " + std::to_string(ready_nodes) + "/" + std::to_string(total) + " nodes ready" +
                    (updating ? ", " + std::to_string(updating) + " updating" : "") +
                    (failed ? ", " + std::to_string(failed) + " failed" : ""));
    }
  }
  for (const Value* q : qs) {
    const std::string what = "TenantQuota " + object_name(*q);
    const auto granted = condition(*q, "Granted");
    if (!granted) {
      all.push_back(what + ": no grant yet");
    } else if (!granted->is_true() || !current(*q, *granted)) {
      all.push_back(what + ": " + (granted->reason.empty() ? "not Granted" : granted->reason));
    }
  }
  out.settled = all.empty();
  if (all.size() > max && max > 0) {
    const std::size_t more = all.size() - (max - 1);
    all.resize(max - 1);
    all.push_back("and " + std::to_string(more) + " more");
  }
  out.waiting_on = std::move(all);
  return out;
}

}  // namespace gpupool::explain
