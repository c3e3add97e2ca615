// Which pods held at the quota gate (scheduling gate gpupool.io/quota) may
// start now, and which running pods give borrowed capacity back. Pure.
//
// Admission: pods are taken higher priority first; among equal priority the
// quota with the smallest dominant share (used / limit, over its resources,
// divided by its fair-share weight) goes next, then the older pod, then by
// name. A pod is admitted when every amount it is charged fits within its
// quota's limit (granted plus the borrowing allowed now) on top of what is
// used, and the devices it takes fit the free capacity of its quota's pool
// (`pool_free`; resources it does not list are not limited there); one that
// does not fit waits and does not hold back smaller pods behind it. Admitted
// pods count at once, so one pass never admits past a limit. Pods within
// their quota's guarantee go first; pods that would borrow get what is left,
// in the same order, after them.
//
// A pod that fits its quota's guarantee (granted, not borrowing; counting the
// quota's pods already listed here) but not the pool's free capacity waits
// for capacity others borrow: it is listed in
// `short_of_guarantee` and the devices missing add to its pool's `shortfall`,
// which is what reclaim must free.
//
// Reclaim: when lenders need capacity they are guaranteed and the pool has no
// free capacity for it, pods of quotas using more than they were granted are
// evicted, lowest priority first, then newest (same second: the greater
// name), until the need is covered;
// a pod is a candidate only while its quota still borrows a resource the
// lenders need and the pod uses. Guaranteed usage is never reclaimed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gpupool/quota/amounts.h"

namespace gpupool::quota {

struct QuotaBudget {
  std::string key;          // "namespace/name" of the TenantQuota
  std::int32_t weight = 1;  // fair-share weight (>= 1)
  Amounts limit;            // granted + what it may borrow now
  Amounts used;             // admitted pods, past the gate and not terminated
  std::string pool;         // its pool (pool_free's key)
  std::optional<Amounts> granted;  // the guarantee; nullopt: the limit
};

struct GatedPod {
  std::string key;          // "namespace/name"
  std::string quota;        // the QuotaBudget key it is charged to
  std::int32_t priority = 0;
  std::int64_t created = 0;  // creation time, milliseconds since the epoch
  Amounts charge;           // what it costs in the quota's resources
  Amounts devices;          // the device resources it takes from the pool (its requests)
};

struct AdmissionDecision {
  std::vector<std::string> admit;             // in admission order
  std::map<std::string, std::string> waiting;  // pod -> why, in numbers
  std::set<std::string> short_of_guarantee;   // waiting within their guarantee, for pool capacity only
  std::map<std::string, Amounts> shortfall;   // pool -> devices those pods need beyond its free capacity
};

// `pool_free`: pool -> device resource -> what no admitted pod holds.
AdmissionDecision decide_admissions(const std::vector<GatedPod>& pods, const std::vector<QuotaBudget>& budgets,
                                    const std::map<std::string, Amounts>& pool_free = {});

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
  Amounts charge;  // what it costs its quota, in the quota's resources
  Amounts frees;   // what evicting it gives back, in `needed`'s terms (for lenders: the devices it holds)
};

// Pods to evict (in order) so that `needed` is freed from borrowed usage
// only; fewer when borrowed usage cannot cover it. A pod helps while it
// frees something still needed, in a resource whose charge (the resource
// itself when the pod is charged it, else gpupool.io/gpu) its quota still
// borrows. Evicting one pod may take its quota below its grant by less than
// that pod's charge (devices come whole); guaranteed usage is otherwise never
// taken. For lenders `needed` is devices beyond the pool's free capacity and
// `frees` the pod's devices; for a quota's own limit both are charges.
std::vector<std::string> choose_reclaim(const Amounts& needed, const std::vector<QuotaUsage>& quotas,
                                        const std::vector<RunningPod>& running);

// Reclaim for lenders, worked out from two views that need not be of one
// moment: the pool's `shortfall` was decided from what its pods held then
// (`held`: pod -> the devices the pool's free capacity counted it holding),
// and `running` is the pods running now (admitted, not terminating, not
// being evicted), which reclaim may take from. A pod held then and not
// running now is on its way out (terminating, evicted, or gone since): what
// it held comes back, so it is needed no more. Each quota's borrowing
// (usage above `granted`, quota -> guarantee) counts its running pods only,
// so a leaving pod is never reclaimed twice, nor does it make its quota look
// as if it still borrowed.
std::vector<std::string> reclaim_for_lenders(const Amounts& shortfall, const std::map<std::string, Amounts>& held,
                                             const std::map<std::string, Amounts>& granted,
                                             const std::vector<RunningPod>& running);

// A quota's own pods to evict so that what its running pods (`running`, all
// of them the quota's; leaving ones not listed) are charged fits `keep`.
std::vector<std::string> reclaim_above(const Amounts& keep, const std::string& quota, std::vector<RunningPod> running);

}  // namespace gpupool::quota
