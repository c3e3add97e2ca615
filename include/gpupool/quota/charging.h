// What a pod is charged, and to which TenantQuota. Pure.
//
// Coverage: a TenantQuota covers the namespaces in its spec.namespaces (its
// own when empty) that exist and belong to its tenant (eligibility.h); a
// namespace a quota of another tenant names is not covered by it, so no
// tenant can hold back another's pods. Pods requesting GPU resources
// (gpu_resources.h) in covered namespaces pass the quota gate.
//
// Which quota: of the quotas covering the pod's namespace (by key), the
// first whose pool matches the pod's nodeSelector gpupool.io/pool when it
// has one, and that counts every GPU resource the pod requests.
//
// The charge, per resource the pod requests (scheduler arithmetic,
// pod_requests.h, plus the devices its DRA claims ask for (claims.h), each
// DeviceClass as the resource the quota's pool's GPUPolicy maps it to in
// quota.deviceClasses; classes it does not map are not GPUs to it):
//   the quota counts the resource itself      -> that many devices of it;
//   else it counts gpupool.io/gpu              -> devices x their cost in the
//                                                 quota's pool (gpu_units.h;
//                                                 a device without a known
//                                                 cost counts a whole GPU);
//   else                                       -> no quota can admit the pod.
//
// State: a pod with the gate gpupool.io/quota waits; one without it (or one
// the caller has just admitted and whose gate removal its informer has not
// delivered yet: `assumed_admitted`) is admitted and counts as used. Pods
// that succeeded or failed count nowhere.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/kube/json_projection.h"
#include "gpupool/quota/amounts.h"
#include "gpupool/quota/claims.h"
#include "gpupool/quota/eligibility.h"
#include "gpupool/quota/usage_ledger.h"

namespace gpupool::quota {

inline constexpr const char* kQuotaGate = "gpupool.io/quota";  // the scheduling gate (a contract)
inline constexpr const char* kPoolSelector = "gpupool.io/pool";  // nodeSelector key pinning a pod to its pool

// One TenantQuota as charging sees it.
struct ChargeableQuota {
  std::string key;                     // "namespace/name"
  std::string ns;                      // its namespace
  std::string pool;                    // spec.poolRef.name
  std::vector<std::string> namespaces;  // spec.namespaces (empty: its own)
  std::vector<std::string> resources;  // the resource names it asks for (spec.resources keys)

  bool operator==(const ChargeableQuota&) const = default;
};

// Namespace -> the quotas covering it, and each quota's pool's unit costs.
struct ChargeMap {
  std::map<std::string, std::vector<std::string>> covering;  // namespace -> keys of the quotas covering it, sorted
  std::map<std::string, ChargeableQuota> quotas;                         // by key
  std::map<std::string, Amounts> unit_costs;                             // by pool
  std::map<std::string, std::map<std::string, std::string>> device_classes;  // pool -> DeviceClass -> resource

  bool covered(const std::string& ns) const { return covering.contains(ns); }
  bool operator==(const ChargeMap&) const = default;
};

ChargeMap build_charge_map(std::vector<ChargeableQuota> quotas, const NamespaceLabels& namespaces,
                           std::map<std::string, Amounts> unit_costs,
                           std::map<std::string, std::map<std::string, std::string>> device_classes = {});

// The namespaces covered, sorted.
std::vector<std::string> covered_namespaces(const ChargeMap& map);

struct PodChargeResult {
  std::optional<PodCharge> charge;  // nullopt: counts nowhere
  std::string why_not;              // when a GPU pod in a covered namespace cannot be charged
  std::string pool;                 // the charged quota's pool
  Amounts devices;                  // with a charge: the GPU resources it requests, what it takes from the pool
};

// What `pod` counts as (usage_ledger.h): nothing when it requests no GPU
// resource, is outside covered namespaces, succeeded or failed, or no
// covering quota can count it (why_not says so in words a tenant can act on).
// `claims`: what its DRA claims ask for (claims.h); a claim that cannot be
// counted is a why_not.
PodChargeResult charge_pod(const kube::PodProjection& pod, const ChargeMap& map, bool assumed_admitted = false,
                           const PodClaims& claims = {});

// Whether the pod carries the gate gpupool.io/quota.
bool gated(const kube::PodProjection& pod);

}  // namespace gpupool::quota
