// The informer stores the pool-level reconcilers read (pool_reconciler.h,
// health_reconciler.h): pools, their policies, nodes, GPUNodes and the
// agents' Leases; and the membership both derive from pools and nodes.
#pragma once

#include "gpupool/kube/object.h"
#include "gpupool/pool_controller/membership_cache.h"
#include "gpupool/runtime/store.h"

namespace gpupool::pool_controller {

struct PoolStores {
  runtime::Store<kube::Object>& pools;
  runtime::Store<kube::Object>& policies;
  runtime::Store<kube::Object>& nodes;
  runtime::Store<kube::Object>& gpunodes;
  runtime::Store<kube::Object>& leases;  // the agents' namespace
  // Shared by the reconcilers given the same one; none: each keeps its own.
  MembershipCache* membership = nullptr;
};

}  // namespace gpupool::pool_controller
