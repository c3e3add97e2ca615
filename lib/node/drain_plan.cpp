// The drain decision: which GPU pods to evict, wait for, or report as
// blocked (rules and their kubectl drain sources in drain_plan.h).
#include "gpupool/node/drain_plan.h"

#include <algorithm>

namespace gpupool::node {
namespace {

constexpr const char* kNoController = "has no controller (use force to evict it; it will not be recreated)";
constexpr const char* kEmptyDir = "uses emptyDir volumes (set deleteEmptyDirData)";
constexpr std::size_t kNamedPerPart = 5;

PodRef ref_of(const PodFacts& p) { return PodRef{p.ns, p.name, p.uid}; }

const PodRef& ref_in(const PodRef& r) { return r; }
const PodRef& ref_in(const WaitingPod& w) { return w.pod; }
const PodRef& ref_in(const BlockedPod& b) { return b.pod; }

template <typename T>
void sort_by_key(std::vector<T>& v) {
  std::stable_sort(v.begin(), v.end(),
                   [](const T& a, const T& b) { return ref_in(a).key() < ref_in(b).key(); });
}

std::string named(const WaitingPod& w) { return w.pod.key() + " (" + w.reason + ")"; }
std::string named(const BlockedPod& b) { return b.pod.key() + " (" + b.reason + ")"; }

// "a (why), b (why)", at most kNamedPerPart named, then "and N more".
template <typename T>
std::string name_list(const std::vector<T>& v) {
  std::string out;
  const std::size_t shown = std::min(v.size(), kNamedPerPart);
  for (std::size_t i = 0; i < shown; ++i) {
    if (i > 0) out += ", ";
    out += named(v[i]);
  }
  if (v.size() > shown) out += " and " + std::to_string(v.size() - shown) + " more";
  return out;
}

}  // namespace

std::string PodRef::key() const { return ns + "/" + name; }

bool DrainPlan::done() const { return evict.empty() && wait_for.empty() && blocked.empty(); }

std::string DrainPlan::summary() const {
  if (done()) return "no GPU pods to drain";
  std::vector<std::string> parts;
  if (!evict.empty()) {
    parts.push_back("evicting " + std::to_string(evict.size()) + (evict.size() == 1 ? " pod" : " pods"));
  }
  if (!wait_for.empty()) parts.push_back("waiting for " + name_list(wait_for));
  if (!blocked.empty()) parts.push_back("blocked: " + name_list(blocked));
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += "; ";
    out += p;
  }
  return out;
}

DrainPlan plan_drain(const std::vector<PodFacts>& pods, const api::DrainOptions& options) {
  DrainPlan plan;
  for (const PodFacts& p : pods) {
    if (!p.uses_gpu || p.finished || p.mirror || p.daemonset) continue;
    if (p.terminating) {
      plan.wait_for.push_back({ref_of(p), "terminating"});
    } else if (p.skip) {
      plan.wait_for.push_back({ref_of(p), options.skip_pod_label + "=true"});
    } else if (p.uses_empty_dir && !options.delete_empty_dir_data) {
      plan.blocked.push_back({ref_of(p), kEmptyDir});
    } else if (!p.has_controller && !options.force) {
      plan.blocked.push_back({ref_of(p), kNoController});
    } else {
      plan.evict.push_back(ref_of(p));
    }
  }
  sort_by_key(plan.evict);
  sort_by_key(plan.wait_for);
  sort_by_key(plan.blocked);
  return plan;
}

}  // namespace gpupool::node
