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
//   gpupool_pool_rollout_window_open{pool}     1 while the rollout may disrupt nodes by its maintenance
//                                              windows (one open, or none set), else 0
// and, computed at each scrape from the informers' stores (heartbeat_families):
//   gpupool_node_heartbeat_timestamp_seconds{pool,node}  the member's agent Lease spec.renewTime,
//                                              Unix seconds; 0 when it has no Lease
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
#include "gpupool/kube/object.h"
#include "gpupool/metrics/registry.h"
#include "gpupool/metrics/snapshot.h"
#include "gpupool/runtime/store.h"

namespace gpupool::pool_controller {

class PoolMetrics {
 public:
  // Registers the families in `registry` (or finds them there).
  explicit PoolMetrics(metrics::Registry& registry);

  // The pool's series now: what `status` says; series it no longer has go.
  // `window_open`: whether the maintenance windows let the rollout disrupt now.
  void set(const std::string& pool, const api::GPUPoolStatus& status, bool window_open = true);
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
  Family* rollout_window_open_;
  std::mutex mu_;
  std::map<std::string, std::set<Series>> shown_;  // pool -> its series in the exposition
};

// gpupool_node_heartbeat_timestamp_seconds for every GPUNode with a pool:
// when its agent (Lease gpupool-agent-<node> in `leases`) last renewed.
std::vector<metrics::FamilySnapshot> heartbeat_families(const runtime::Store<kube::Object>& gpunodes,
                                                        const runtime::Store<kube::Object>& leases,
                                                        const std::string& agent_namespace);

}  // namespace gpupool::pool_controller
