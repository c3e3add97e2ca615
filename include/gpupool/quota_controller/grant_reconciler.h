// The grant reconciler: for one GPUPool (the request's name), what every
// TenantQuota naming it is granted. Reads the stores (TenantQuotas,
// GPUPools, GPUPolicies, GPUNodes, Namespaces), calls lib/quota
// (eligibility, decide_grants), writes results:
// - each TenantQuota's status: observedGeneration, phase, granted, the
//   condition Granted (reason Granted, PartiallyGranted, WaitingForCapacity,
//   WaitingForApproval, Rejected, Expired or PoolNotFound, message in
//   numbers) and CapacityReduced while a grant held before was cut;
//   used, waiting, borrowed and approved are left as they are (other writers);
//   a few written at once, those whose grant falls before any other;
// - the pool's status.granted (the pool reconciler keeps it).
// Capacity: the pool's status.capacity by resource name, and for the
// normalised unit gpupool.io/gpu the physical GPUs its members report (each
// GPU is one GPU's worth, however it is partitioned or shared), less what
// the device grants cost in it (pool_unit_costs.h).
// Requeues itself for the next expiresAt.
#pragma once

#include <string>

#include "gpupool/kube/client.h"
#include "gpupool/kube/object.h"
#include "gpupool/quota_controller/pool_view.h"
#include "gpupool/runtime/controller.h"
#include "gpupool/runtime/store.h"

namespace gpupool::quota_controller {

struct GrantStores {
  runtime::Store<kube::Object>& quotas;      // TenantQuotas, all namespaces
  runtime::Store<kube::Object>& pools;
  runtime::Store<kube::Object>& policies;
  runtime::Store<kube::Object>& gpunodes;
  runtime::Store<kube::Object>& namespaces;
};

class GrantReconciler : public runtime::Reconciler {
 public:
  GrantReconciler(kube::Client& client, GrantStores stores) : client_(client), stores_(stores) {}
  runtime::Result reconcile(const runtime::Request& request, std::stop_token stop) override;

 private:
  kube::Client& client_;
  GrantStores stores_;
  PoolReader pool_reader_;  // shared by the workers
};

}  // namespace gpupool::quota_controller
