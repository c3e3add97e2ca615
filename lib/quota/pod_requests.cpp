#include "gpupool/quota/pod_requests.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>

#include "gpupool/api/quantity.h"

namespace gpupool::quota {
namespace {

using Counted = std::function<bool(std::string_view)>;
using Quantities = kube::PodProjection::Quantities;

void add_into(Amounts& into, const Amounts& more) {
  for (const auto& [r, v] : more) into[r] += v;
}

void max_into(Amounts& into, const Amounts& other) {
  for (const auto& [r, v] : other) into[r] = std::max(into[r], v);
}

// A map of quantities (requests, limits, overhead), counted resources only.
Amounts quantities(const Quantities& map, const std::string& where, const Counted& counted,
                   std::vector<std::string>& problems) {
  Amounts out;
  for (const auto& [name, text] : map) {
    if (!counted(name)) continue;
    std::optional<std::int64_t> micro;
    auto parsed = api::parse_quantity(text);
    if (parsed.value) micro = parsed.value->micro_value();
    if (!micro || *micro < 0) {
      problems.push_back(where + "[" + name + "]: \"" + text + "\" is not a quantity the quota can count");
      continue;
    }
    out[name] = *micro;
  }
  return out;
}

Amounts container_requests(const kube::PodProjection::Container& c, const std::string& where, const Counted& counted,
                           std::vector<std::string>& problems) {
  Amounts requests = quantities(c.requests, where + ".resources.requests", counted, problems);
  // A limit without a request: the request defaults to it.
  for (const auto& [r, v] : quantities(c.limits, where + ".resources.limits", counted, problems)) requests.emplace(r, v);
  return requests;
}

}  // namespace

PodRequests pod_requests(const kube::PodProjection& pod, const Counted& counted) {
  PodRequests out;
  Amounts sum;
  for (std::size_t i = 0; i < pod.containers.size(); ++i) {
    add_into(sum, container_requests(pod.containers[i], "spec.containers[" + std::to_string(i) + "]", counted,
                                     out.problems));
  }
  Amounts init_max, sidecars;
  for (std::size_t i = 0; i < pod.rare().init_containers.size(); ++i) {
    const auto& c = pod.rare().init_containers[i];
    Amounts r = container_requests(c, "spec.initContainers[" + std::to_string(i) + "]", counted, out.problems);
    if (c.restart_always) {
      add_into(sum, r);  // a sidecar runs beside the containers
      add_into(sidecars, r);
      max_into(init_max, sidecars);
    } else {
      add_into(r, sidecars);  // runs while the sidecars started before it run
      max_into(init_max, r);
    }
  }
  max_into(sum, init_max);
  add_into(sum, quantities(pod.rare().overhead, "spec.overhead", counted, out.problems));
  for (const auto& [r, v] : sum) {
    if (v > 0) out.requests[r] = v;
  }
  return out;
}

void drop_uncounted_resources(kube::PodProjection& pod, const Counted& counted) {
  auto trim = [&](kube::PodProjection::Container& c) {
    std::erase_if(c.requests, [&](const auto& entry) { return !counted(entry.first); });
    std::erase_if(c.limits,
                  [&](const auto& entry) { return !counted(entry.first) || kube::find_quantity(c.requests, entry.first); });
    // What is kept stays in the store: give back what the dropped entries held.
    c.requests.shrink_to_fit();
    c.limits.shrink_to_fit();
  };
  for (auto& c : pod.containers) trim(c);
  pod.containers.shrink_to_fit();
  if (pod.rare().init_containers.empty() && pod.rare().overhead.empty()) return;  // no copy of shared rare fields
  auto& rare = pod.rare_mut();
  for (auto& c : rare.init_containers) trim(c);
  std::erase_if(rare.overhead, [&](const auto& entry) { return !counted(entry.first); });
  rare.overhead.shrink_to_fit();
}

}  // namespace gpupool::quota
