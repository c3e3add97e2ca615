// Which pods held at the quota gate (scheduling gate gpupool.io/quota) may
// start now, and which running pods give borrowed capacity back. Pure.
//
// Admission: pods are taken higher priority first; among equal priority the
// quota with the smallest dominant share (used / limit, over its resources,
// divided by its fair-share weight) goes next, then the older pod, then by
// name. A pod is admitted when every amount it is charged fits within its
// quota's limit (granted plus the borrowing allowed now) on top of what is
// used; one that does not fit waits and does not hold back smaller pods behind
// it. Admitted pods count at once, so one pass never admits past a limit.
//
// Reclaim: when lenders need capacity they are guaranteed and the pool has no
// free capacity for it, pods of quotas using more than they were granted are
// evicted, lowest priority first, then newest, until the need is covered;
// a pod is a candidate only while its quota still borrows a resource the
// lenders need and the pod uses. Guaranteed usage is never reclaimed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gpupool/quota/amounts.h"

namespace gpupool::quota {

struct QuotaBudget {
  std::string key;          // "namespace/name" of the TenantQuota
  std::int32_t weight = 1;  // fair-share weight (>= 1)
  Amounts limit;            // granted + what it may borrow now
  Amounts used;             // admitted pods, past the gate and not terminated
};

struct GatedPod {
  std::string key;          // "namespace/name"
  std::string quota;        // the QuotaBudget key it is charged to
  std::int32_t priority = 0;
  std::int64_t created = 0;  // creation time, milliseconds since the epoch
  Amounts charge;           // what it costs in the quota's resources
};

struct AdmissionDecision {
  std::vector<std::string> admit;             // in admission order
  std::map<std::string, std::string> waiting;  // pod -> why, in numbers
};

AdmissionDecision decide_admissions(const std::vector<GatedPod>& pods, const std::vector<QuotaBudget>& budgets);

struct QuotaUsage {
  std::string key;
  Amounts granted;
  Amounts used;
};

struct RunningPod {
  std::string key;
  std::string quota;
  std::int32_t priority = 0;
  std::int64_t created = 0;
  Amounts charge;
};

// Pods to evict (in order) so that `needed` (by lenders, beyond the pool's
// free capacity) is freed from borrowed usage only; fewer when borrowed
// usage cannot cover it.
std::vector<std::string> choose_reclaim(const Amounts& needed, const std::vector<QuotaUsage>& quotas,
                                        const std::vector<RunningPod>& running);

}  // namespace gpupool::quota
