// Which GPUPools a Node's labels concern, for the handlers that wake pool
// passes: the pools whose selector matches the Node (one being deleted too),
// and the pool its label gpupool.io/pool names. Called on a relabelled
// Node's old and new object, it names every pool whose membership the
// change can move (a node belongs to the highest-priority pool selecting it,
// so a pool that selects it neither before nor after is not concerned). A
// pool whose spec cannot be read is always named.
//
// Waking every pool on each relabelling instead made a rollout at 5,000
// nodes in 20 pools queue all 20 pool passes and 20 health passes behind
// every node the agents relabelled (their driver labels).
//
// Decoded selectors are kept per pool by resourceVersion. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/kube/object.h"
#include "gpupool/pool/membership.h"
#include "gpupool/runtime/controller.h"
#include "gpupool/runtime/store.h"

namespace gpupool::pool_controller {

class SelectingPools {
 public:
  // `pools` (the GPUPool store) must outlive this.
  explicit SelectingPools(const runtime::Store<kube::Object>& pools) : pools_(pools) {}

  std::vector<runtime::Request> operator()(const kube::Object& node);

  // Whether a Node's update can move it between pools: its deletion began,
  // or the pools its labels concern differ before
  // and after (a pool whose spec cannot be read concerns every node, so it
  // never tells them apart). The agents' driver labels in a rollout change
  // no pool's selection: waking GPU health on them made about 11,000 passes
  // in a rollout of 5,000 nodes.
  bool selection_changed(const kube::Object& before, const kube::Object& after);

 private:
  struct Entry {
    std::string resource_version;
    std::optional<pool::PoolSelector> selector;  // none: the spec cannot be read
  };
  const runtime::Store<kube::Object>& pools_;
  std::mutex mu_;
  std::map<std::string, Entry> cache_;
};

}  // namespace gpupool::pool_controller
