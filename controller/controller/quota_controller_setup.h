// Wires the quota controller into the manager: the grant reconciler (one
// key per GPUPool) and which events wake which pools: a TenantQuota its
// pool; a GPUPool itself; a GPUNode its pool (GPU counts); a GPUPolicy the
// pools referencing it; a Namespace's labels every pool (tenants, selectors).
#pragma once

#include <memory>

#include "gpupool/quota_controller/grant_reconciler.h"
#include "gpupool/runtime/controller.h"
#include "gpupool/runtime/manager.h"

namespace gpupool::controller {

class QuotaController {
 public:
  QuotaController(runtime::Manager& manager, int concurrency);

 private:
  std::unique_ptr<quota_controller::GrantReconciler> grants_;
  std::unique_ptr<runtime::Controller> grant_controller_;
};

}  // namespace gpupool::controller
