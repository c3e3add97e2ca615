// The fleet's pool membership (pool::resolve_membership) over the Node
// store, shared by the pool and health reconcilers and recomputed only when
// one of its inputs changed: a pool's selector, priority or deletion (the
// selectors given), a node's placement (pool::place_node: a relabelled node
// is placed again, and only a new placement counts), a node added or
// removed. A recomputation builds from the placements kept, reading no
// labels. Otherwise a
// pass costs one walk over the store comparing resourceVersions, not a map
// of labels per node and every selector against every node: at 5,000 nodes
// and 20 pools those two were a third of the controller's CPU during a
// rollout, each pass resolving the same answer again. While the store has
// not been written since (runtime::Store::revision) and the selectors are
// the same, a pass costs not even the walk.
//
// Keeps per node its resourceVersion, a hash of its labels (not the labels:
// at 5,000 real nodes of 30-50 labels each they would be megabytes) and its
// placement. Relabelling every node of a rollout (the agent's driver labels;
// a kwok Node's first update) resolved the fleet again at each one: at 5,000
// nodes that was a third of the controller's CPU during the rollout.
// Thread-safe; the Membership returned is immutable and may outlive later
// calls.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpupool/kube/object.h"
#include "gpupool/pool/membership.h"
#include "gpupool/runtime/store.h"

namespace gpupool::pool_controller {

class MembershipCache {
 public:
  // `selectors` in any order (the same pools in another order hit the cache).
  std::shared_ptr<const pool::Membership> get(std::vector<pool::PoolSelector> selectors,
                                              const runtime::Store<kube::Object>& nodes);

  // How many times get() resolved the membership afresh, and walked the
  // store (for tests).
  std::uint64_t resolutions() const;
  std::uint64_t walks() const;

 private:
  struct NodeEntry {
    std::string resource_version;
    std::uint64_t labels_hash = 0;
    std::uint64_t seen = 0;  // the get() that last saw the node
    pool::Placement placement;  // indexes into selectors_
  };
  mutable std::mutex mu_;
  std::vector<pool::PoolSelector> selectors_;
  std::unordered_map<std::string, NodeEntry> nodes_;
  std::uint64_t calls_ = 0;
  std::uint64_t resolutions_ = 0;
  std::uint64_t walks_ = 0;
  const runtime::Store<kube::Object>* store_ = nullptr;  // what the last walk read, at store_revision_
  std::uint64_t store_revision_ = 0;
  std::shared_ptr<const pool::Membership> value_;
};

}  // namespace gpupool::pool_controller
