// Recorders for limits that must hold at every moment of a test, not just at
// its end: each watches every change (one watch stream per resource, etcd's
// revision order) from construction until destruction, and a test asks
// afterwards for the worst moment. A watch that fails is restarted with a
// fresh list (resourceVersion "0"), which replays the current state; nothing
// can change while the apiserver is down, so a restart loses no moment.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gpupool/kube/client.h"
#include "support/fleet_fixture.h"

namespace gpupool::test {

// Watches `ref` until `stop`, calling `on_object(type, object)` for each
// added, modified or deleted object. A watch that fails is restarted with a
// fresh list (resourceVersion "0"), after `on_relist()` (a recorder that sums
// state clears it: the list replays the current state).
inline void watch_until_stopped(kube::Client& client, const kube::ResourceRef& ref, std::stop_token stop,
                                const std::function<void(kube::WatchEventType, const rapidjson::Document&)>& on_object,
                                const std::function<void()>& on_relist = [] {}) {
  kube::ListOptions lo;
  lo.resource_version = "0";
  while (!stop.stop_requested()) {
    try {
      client.watch(ref, lo, [&](const kube::WatchEvent& e) {
        if (e.type == kube::WatchEventType::Bookmark || e.type == kube::WatchEventType::Error) return true;
        on_object(e.type, kube::parse_json(e.object));
        return true;
      }, stop);
    } catch (const std::exception&) {
      lo.resource_version = "0";
      on_relist();
    }
  }
}

// Every change of the GPUNodes and Nodes in one timeline (etcd revisions are
// global), replayed after the test: how many of `nodes` were disrupted
// (permission granted or cordoned) at the worst moment.
class DisruptionRecorder {
 public:
  DisruptionRecorder(kube::Client& client, std::set<std::string> nodes) : nodes_(std::move(nodes)) {
    for (auto [ref, kind] : {std::pair{kGpuNodes, 'g'}, {kNodes, 'n'}}) {
      threads_.emplace_back([this, &client, ref, kind](std::stop_token stop) {
        watch_until_stopped(client, ref, stop, [&](kube::WatchEventType type, const rapidjson::Document& obj) {
          const std::string name = str(obj, {"metadata", "name"});
          if (!nodes_.count(name)) return;
          const bool on = type != kube::WatchEventType::Deleted &&
                          flag(obj, {"spec", kind == 'g' ? "disruptionAllowed" : "unschedulable"});
          std::lock_guard lock(mu_);
          events_.push_back({std::stoull(str(obj, {"metadata", "resourceVersion"})), kind, name, on});
        });
      });
    }
  }
  // The most nodes disrupted at once, and when it was seen (a description).
  std::pair<int, std::string> worst() {
    const std::vector<Event> ev = in_revision_order();
    std::map<std::string, bool> granted, cordoned;
    int most = 0;
    std::string when;
    for (const auto& e : ev) {
      (e.kind == 'g' ? granted : cordoned)[e.name] = e.on;
      std::vector<std::string> now;
      for (const auto& n : nodes_) {
        if (granted[n] || cordoned[n]) now.push_back(n);
      }
      if (static_cast<int>(now.size()) > most) {
        most = static_cast<int>(now.size());
        when = "at revision " + std::to_string(e.rv) + ":";
        for (const auto& n : now) when += " " + n;
      }
    }
    return {most, when};
  }
  std::size_t seen() {
    std::lock_guard lock(mu_);
    return events_.size();
  }
  // The revisions at which `name` was granted (kind 'g': its GPUNode's
  // spec.disruptionAllowed turned on) or cordoned ('n'), in order.
  std::vector<std::uint64_t> turned_on(char kind, const std::string& name) {
    std::vector<std::uint64_t> out;
    bool was_on = false;
    for (const auto& e : in_revision_order()) {
      if (e.kind != kind || e.name != name) continue;
      if (e.on && !was_on) out.push_back(e.rv);
      was_on = e.on;
    }
    return out;
  }

 private:
  struct Event {
    std::uint64_t rv;
    char kind;
    std::string name;
    bool on;
  };
  // A copy of what was recorded so far, sorted by resourceVersion (stably).
  std::vector<Event> in_revision_order() {
    std::vector<Event> ev;
    {
      std::lock_guard lock(mu_);
      ev = events_;
    }
    std::stable_sort(ev.begin(), ev.end(), [](const Event& a, const Event& b) { return a.rv < b.rv; });
    return ev;
  }
  std::set<std::string> nodes_;
  std::mutex mu_;
  std::vector<Event> events_;
  std::vector<std::jthread> threads_;
};

inline const kube::ResourceRef kPods{kube::core::pods(), "", "", ""};

inline bool has_gate(const rapidjson::Value& pod) {
  const auto* g = at(pod, {"spec", "schedulingGates"});
  if (!g || !g->IsArray()) return false;
  for (const auto& x : g->GetArray()) {
    if (str(x, {"name"}) == "gpupool.io/quota") return true;
  }
  return false;
}

inline int gpus_of(const rapidjson::Value& pod) {
  int n = 0;
  const auto* cs = at(pod, {"spec", "containers"});
  if (!cs || !cs->IsArray()) return 0;
  for (const auto& c : cs->GetArray()) {
    const std::string v = str(c, {"resources", "limits", "nvidia.com/gpu"});
    if (!v.empty()) n += std::stoi(v);
  }
  return n;
}

// Amounts by key, summed at every change, and the most the sum ever was:
// what the summing recorders below keep (under their own lock).
struct SummedAmounts {
  std::map<std::string, int> by_key;
  int now = 0;
  int most = 0;
  // `key` now holds `amount`; the sum is taken again.
  void set(const std::string& key, int amount) {
    by_key[key] = amount;
    now = 0;
    for (const auto& [k, n] : by_key) now += n;
    most = std::max(most, now);
  }
  // A relist: the sum is rebuilt from the current state it replays (the most stays).
  void clear() { by_key.clear(); }
};

// Every change of the pods in `namespaces`, in the order of one watch stream
// (etcd's revision order): the GPUs of pods past the gate and not finished,
// summed at every moment; the most ever seen.
class AdmittedRecorder {
 public:
  AdmittedRecorder(kube::Client& client, std::set<std::string> namespaces) : namespaces_(std::move(namespaces)) {
    thread_ = std::jthread([this, &client](std::stop_token stop) {
      watch_until_stopped(client, kPods, stop, [&](kube::WatchEventType type, const rapidjson::Document& pod) {
        if (!namespaces_.count(str(pod, {"metadata", "namespace"}))) return;
        const std::string key = str(pod, {"metadata", "namespace"}) + "/" + str(pod, {"metadata", "name"});
        const std::string phase = str(pod, {"status", "phase"});
        const bool counts = type != kube::WatchEventType::Deleted && !has_gate(pod) && phase != "Succeeded" &&
                            phase != "Failed";
        std::lock_guard lock(mu_);
        admitted_.set(key, counts ? gpus_of(pod) : 0);
        if (const std::string node = str(pod, {"spec", "nodeName"}); !node.empty()) bound_to_[key] = node;
        seen_.insert(key);
        std::map<std::string, int> by_ns;
        for (const auto& [k, g] : admitted_.by_key) by_ns[k.substr(0, k.find('/'))] += g;
        for (const auto& [ns, g] : by_ns) most_by_ns_[ns] = std::max(most_by_ns_[ns], g);
        ++events_;
      }, [&] {
        std::lock_guard lock(mu_);
        admitted_.clear();
      });
    });
  }
  int most() {
    std::lock_guard lock(mu_);
    return admitted_.most;
  }
  int most(const std::string& ns) {
    std::lock_guard lock(mu_);
    return most_by_ns_[ns];
  }
  std::size_t events() {
    std::lock_guard lock(mu_);
    return events_;
  }
  // The node the pod "namespace/name" was last seen bound to; empty when it
  // was never seen bound.
  std::string bound_to(const std::string& key) {
    std::lock_guard lock(mu_);
    auto it = bound_to_.find(key);
    return it == bound_to_.end() ? "" : it->second;
  }
  bool seen(const std::string& key) {
    std::lock_guard lock(mu_);
    return seen_.count(key) > 0;
  }

 private:
  std::set<std::string> namespaces_;
  std::mutex mu_;
  SummedAmounts admitted_;
  std::map<std::string, int> most_by_ns_;
  std::map<std::string, std::string> bound_to_;
  std::set<std::string> seen_;
  std::size_t events_ = 0;
  std::jthread thread_;
};

// Every change of one GPUPool's Ready condition, in watch order: the
// statuses it went through ("", "False", "True", ...), repeats dropped.
class ReadyRecorder {
 public:
  ReadyRecorder(kube::Client& client, std::string pool) : pool_(std::move(pool)) {
    thread_ = std::jthread([this, &client](std::stop_token stop) {
      watch_until_stopped(client, kPools, stop, [&](kube::WatchEventType type, const rapidjson::Document& obj) {
        if (str(obj, {"metadata", "name"}) != pool_) return;
        const std::string now = type == kube::WatchEventType::Deleted ? "" : condition(obj, "Ready");
        std::lock_guard lock(mu_);
        if (seen_.empty() || seen_.back() != now) seen_.push_back(now);
      });
    });
  }
  std::vector<std::string> seen() {
    std::lock_guard lock(mu_);
    return seen_;
  }

 private:
  std::string pool_;
  std::mutex mu_;
  std::vector<std::string> seen_;
  std::jthread thread_;
};

}  // namespace gpupool::test
