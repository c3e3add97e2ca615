// What each TenantQuota asking one pool is granted. Pure and deterministic:
// the same asks and rules give the same grants, whatever their order.
//
// For every resource name (amounts in micro-units, quota/amounts.h):
// 1. A rejected or expired quota gets nothing.
// 2. Its demand is what it requests, capped by what an administrator approved
//    (manual approval: nothing before the first approval, and a request raised
//    since is granted only up to the approved amount) and by maxPerTenant over
//    all quotas of one tenant (higher priority, then older, take the cap first).
// 3. Grants held already are kept up to the demand: a guarantee is a promise.
//    When capacity minus the reserve no longer covers them (nodes lost,
//    layouts changed), they shrink, lowest priority first, then newest, and
//    those quotas are marked capacity_reduced.
// 4. What is left goes to unmet demand, higher priority first. Among equal
//    priority it is divided in proportion to the fair-share weights (none gets
//    more than it needs; what one does not need goes to the others); the few
//    grains such a division leaves go to the quota with the least added per
//    unit of weight, then the older.
// Grants move in grains (quota/amounts.h): whole devices, thousandths of a
// GPU for gpupool.io/gpu.
//
// gpupool.io/gpu and the device resources are two currencies over the same
// GPUs: every device granted also spends what it costs by `unit_costs` (a
// device without a cost counts as a whole GPU) of the gpupool.io/gpu
// capacity, so the two together never guarantee more GPUs than the pool has.
// Priority rules across both: a priority level is served in full (its
// devices first, then its gpupool.io/gpu) before the next. Without partial grants a quota gets its whole
// demand or nothing: at equal priority the smaller demand per weight first,
// then the older; one that does not fit does not block smaller ones behind it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/quota/amounts.h"

namespace gpupool::quota {

struct QuotaAsk {
  std::string key;           // "namespace/name": messages and the last tie-break
  std::string tenant;        // the namespace's gpupool.io/tenant label, else the namespace
  std::int32_t priority = 0;
  std::int32_t weight = 1;   // fair-share weight (>= 1)
  std::int64_t created = 0;  // creation time, seconds since the epoch: older first
  Amounts requested;
  std::optional<Amounts> approved;  // manual approval: what was approved (nullopt: not yet)
  Amounts held;                     // granted before (its status)
  std::optional<std::string> rejected;  // why it may not ask this pool (it gets nothing)
  bool expired = false;
};

struct GrantRules {
  std::string pool;            // for messages
  Amounts capacity;            // the pool's, by resource name
  Amounts reserve;             // kept back from guarantees
  Amounts max_per_tenant;      // resources absent: no cap
  Amounts unit_costs;          // device resource -> millionths of a GPU per device (gpu_units.h)
  bool partial = true;
  bool manual_approval = false;
};

enum class GrantOutcome { granted, partially_granted, pending, waiting_for_approval, rejected, expired };

struct QuotaGrant {
  std::string key;
  Amounts granted;               // entries with 0 left out
  GrantOutcome outcome = GrantOutcome::pending;
  bool capacity_reduced = false;  // a grant held before was cut because capacity fell
  std::string message;  // in numbers: "granted 6 of 8 nvidia.com/gpu: pool training-a100 has 0 unreserved"
};

struct PoolGrants {
  std::vector<QuotaGrant> quotas;  // in the order of the asks
  Amounts granted;                 // the sum, by resource
  Amounts unreserved;              // capacity - reserve - granted, by resource of the capacity
};

PoolGrants decide_grants(const std::vector<QuotaAsk>& asks, const GrantRules& rules);

}  // namespace gpupool::quota
