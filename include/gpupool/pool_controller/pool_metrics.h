// Each GPUPool's status (pool/pool_status.h) as Prometheus gauges, set by the
// pool reconciler at the end of each pass; amounts in the resource's unit
// (devices; GPUs, fractions included, for gpupool.io/gpu):
//   gpupool_pool_capacity{pool,resource}       devices the members advertise (status.capacity)
//   gpupool_pool_granted{pool,resource}        granted to the pool's TenantQuotas (status.granted,
//                                              written by the quota controller)
//   gpupool_pool_member_nodes{pool}            member nodes (status.nodes.total)
//   gpupool_pool_nodes{pool,state}             status.nodes by state: ready (up to date, Node Ready),
//                                              updating, failed, conflicted (claimed at equal priority
//                                              by another pool, not members); they overlap
//   gpupool_pool_rollout_nodes{pool,state}     the rollout: updated, pending (waiting for their turn or
//                                              their agent), in_progress, failed
//   gpupool_pool_rollout_paused{pool}          1 while spec.paused, else 0
// A node count is always there (0 included); a resource's series only while
// the status has it. remove() drops every series of a pool (deleted, or gone).
// Thread-safe: pools reconcile concurrently.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gpupool/api/gpupool.h"
#include "gpupool/metrics/family.h"
#include "gpupool/metrics/gauge_function.h"
#include "gpupool/metrics/registry.h"

namespace gpupool::pool_controller {

class PoolMetrics {
 public:
  // Registers the families in `registry` (or finds them there).
  explicit PoolMetrics(metrics::Registry& registry);

  // The pool's series now: what `status` says; series it no longer has go.
  void set(const std::string& pool, const api::GPUPoolStatus& status);
  // Drops every series of the pool.
  void remove(const std::string& pool);

 private:
  using Family = metrics::Family<metrics::GaugeFunction>;
  using Series = std::pair<Family*, std::vector<std::string>>;

  Family* capacity_;
  Family* granted_;
  Family* member_nodes_;
  Family* nodes_;
  Family* rollout_nodes_;
  Family* rollout_paused_;
  std::mutex mu_;
  std::map<std::string, std::set<Series>> shown_;  // pool -> its series in the exposition
};

}  // namespace gpupool::pool_controller
