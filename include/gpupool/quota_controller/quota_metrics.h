// The quota gate's figures as Prometheus gauges, published by the admission
// reconciler (admission_reconciler.h) at the end of each pass; only the
// leader runs passes, and only with the gate on (a webhook server). Amounts
// in the resource's unit (devices; GPUs, fractions included, for
// gpupool.io/gpu).
//
// Each TenantQuota, labelled namespace, name, resource:
//   gpupool_tenantquota_granted   what the quota is guaranteed
//   gpupool_tenantquota_used      admitted pods' requests, past the gate, not finished
//   gpupool_tenantquota_waiting   requests of pods held at the gate
//   gpupool_tenantquota_borrowed  used above granted
// labelled namespace, name:
//   gpupool_tenantquota_pods_waiting  pods held at the gate for the quota, a
//                                 count (0 included: always there)
// and gpupool_tenantquota_info{namespace, name, pool, tenant} 1: the quota's
// pool and tenant (its namespace's label gpupool.io/tenant, else the
// namespace; quota/eligibility.h), for joining the others to a pool or
// summing them by tenant in PromQL (the pool's alerts join by pool).
//
// Each GPUPool a TenantQuota names (PoolMetrics has its capacity and grants):
//   gpupool_pool_allocated{pool, resource}  devices the admitted pods pinned
//                                 to the pool hold (their GPU resource
//                                 requests, not finished), same resources and
//                                 unit as gpupool_pool_capacity
//
// A series leaves the exposition when its quota, pool or resource goes, or
// its amount falls to 0 (pods_waiting and info stay while the quota does).
// Not thread-safe: one reconciler publishes.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "gpupool/metrics/family.h"
#include "gpupool/metrics/gauge_function.h"
#include "gpupool/metrics/registry.h"
#include "gpupool/quota/amounts.h"

namespace gpupool::quota_controller {

struct QuotaFigures {
  quota::Amounts granted, used, waiting, borrowed;
  std::string pool;              // spec.poolRef.name
  std::string tenant;            // quota::tenant_of its namespace
  std::size_t pods_waiting = 0;  // pods held at the gate for it
};

class QuotaMetrics {
 public:
  // Registers the families in `registry` (or finds them there).
  explicit QuotaMetrics(metrics::Registry& registry);
  // The figures of every quota now ("namespace/name" -> figures); series not in it are dropped.
  void publish(const std::map<std::string, QuotaFigures>& quotas);
  // The devices each pool's admitted pods hold now (pool -> resource -> micro-units);
  // series not in it (pools gone or holding none, resources at 0) are dropped.
  void publish_pools(const std::map<std::string, quota::Amounts>& allocated);

 private:
  using Family = metrics::Family<metrics::GaugeFunction>;
  using Shown = std::set<std::tuple<Family*, std::vector<std::string>>>;
  // Sets `now`'s series (already set), drops those in `shown` not in it.
  static void replace(Shown& shown, Shown now);

  Family* granted_;
  Family* used_;
  Family* waiting_;
  Family* borrowed_;
  Family* pods_waiting_;
  Family* info_;
  Family* allocated_;
  Shown shown_;        // the quotas' series
  Shown pools_shown_;  // the pools'
};

}  // namespace gpupool::quota_controller
