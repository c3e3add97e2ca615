#include "gpupool/quota/charging.h"

#include <algorithm>

#include "gpupool/quota/gpu_resources.h"
#include "gpupool/quota/gpu_units.h"
#include "gpupool/quota/pod_requests.h"

namespace gpupool::quota {
namespace {

bool counts(const ChargeableQuota& q, const std::string& resource) {
  return std::find(q.resources.begin(), q.resources.end(), resource) != q.resources.end();
}

// The pod's requests in the quota's resources, or the first resource it cannot count.
std::optional<Amounts> charge_in(const ChargeableQuota& q, const Amounts& requests, const Amounts* unit_costs,
                                 std::string& missing) {
  Amounts out;
  const std::string unit(kGpuUnit);
  for (const auto& [r, v] : requests) {
    if (counts(q, r)) {
      out[r] += v;
    } else if (counts(q, unit)) {
      Amounts one{{r, v}};
      const auto cost = unit_costs ? unit_costs->find(r) : Amounts::const_iterator{};
      // A device whose cost is not known counts as a whole GPU: never less than it is.
      out[unit] += unit_costs && cost != unit_costs->end() ? gpu_units_of(one, *unit_costs) : v;
    } else {
      missing = r;
      return std::nullopt;
    }
  }
  return out;
}

}  // namespace

ChargeMap build_charge_map(std::vector<ChargeableQuota> quotas, const NamespaceLabels& namespaces,
                           std::map<std::string, Amounts> unit_costs,
                           std::map<std::string, std::map<std::string, std::string>> device_classes) {
  ChargeMap map;
  map.unit_costs = std::move(unit_costs);
  map.device_classes = std::move(device_classes);
  for (auto& q : quotas) {
    const std::string tenant = tenant_of(q.ns, namespaces);
    std::vector<std::string> covered = q.namespaces.empty() ? std::vector<std::string>{q.ns} : q.namespaces;
    std::sort(covered.begin(), covered.end());
    covered.erase(std::unique(covered.begin(), covered.end()), covered.end());
    for (const auto& ns : covered) {
      // Only the tenant's own namespaces that exist: no quota holds back another tenant's pods.
      if (!namespaces.contains(ns) || tenant_of(ns, namespaces) != tenant) continue;
      map.covering[ns].push_back(q.key);
    }
    map.quotas.emplace(q.key, std::move(q));
  }
  for (auto& [ns, keys] : map.covering) std::sort(keys.begin(), keys.end());
  return map;
}

std::vector<std::string> covered_namespaces(const ChargeMap& map) {
  std::vector<std::string> out;
  for (const auto& [ns, keys] : map.covering) out.push_back(ns);
  return out;
}

bool gated(const kube::PodProjection& pod) {
  const auto& gates = pod.rare().scheduling_gates;
  return std::find(gates.begin(), gates.end(), kQuotaGate) != gates.end();
}

PodChargeResult charge_pod(const kube::PodProjection& pod, const ChargeMap& map, bool assumed_admitted,
                           const PodClaims& claims) {
  PodChargeResult out;
  if (kube::terminal(pod.phase)) return out;
  const auto covering = map.covering.find(pod.ns);
  if (covering == map.covering.end()) return out;
  const Amounts container_requests = pod_requests(pod, is_gpu_resource).requests;
  if (container_requests.empty() && claims.by_class.empty() && claims.problem.empty()) return out;
  if (!claims.problem.empty()) {
    out.why_not = claims.problem;
    return out;
  }

  const auto pinned = pod.rare().node_selector.find(kPoolSelector);
  std::string first_missing, first_quota;
  bool asked = false;  // whether any covering quota's pool counts anything the pod asks for
  for (const auto& key : covering->second) {
    const ChargeableQuota& q = map.quotas.at(key);
    if (pinned != pod.rare().node_selector.end() && pinned->second != q.pool) continue;
    // The claims' devices as this pool's policy names them; other classes are not GPUs here.
    Amounts requests = container_requests;
    if (auto classes = map.device_classes.find(q.pool); classes != map.device_classes.end()) {
      for (const auto& [cls, v] : claims.by_class) {
        if (auto r = classes->second.find(cls); r != classes->second.end()) requests[r->second] += v;
      }
    }
    if (requests.empty()) continue;
    asked = true;
    const auto costs = map.unit_costs.find(q.pool);
    std::string missing;
    if (auto charge = charge_in(q, requests, costs == map.unit_costs.end() ? nullptr : &costs->second, missing)) {
      const bool waiting = gated(pod) && !assumed_admitted;
      out.charge = PodCharge{key, std::move(*charge), waiting ? PodQuotaState::waiting : PodQuotaState::admitted};
      out.pool = q.pool;
      out.devices = std::move(requests);
      return out;
    }
    if (first_quota.empty()) first_quota = key, first_missing = missing;
  }
  if (!asked && container_requests.empty()) return out;  // claims of classes no policy maps: not a GPU pod
  if (first_quota.empty()) {
    out.why_not = "no TenantQuota covering namespace " + pod.ns + " is in pool " + pinned->second +
                  " (the pod's nodeSelector gpupool.io/pool)";
  } else {
    out.why_not = "TenantQuota " + first_quota + " does not count " + first_missing +
                  " (add it, or gpupool.io/gpu, to spec.resources)";
  }
  return out;
}

}  // namespace gpupool::quota
