// Wires the quota controller into the manager: the grant reconciler (one
// key per GPUPool) and which events wake which pools: a TenantQuota its
// pool; a GPUPool itself; a GPUNode its pool (GPU counts); a GPUPolicy the
// pools referencing it; a Namespace's labels every pool (tenants, selectors).
// With the webhook server, the quota gate too: the gate's admission objects
// (one key) and the admission reconciler (one key) over a pod informer of
// projected pods, woken by pod changes that move usage or waiting pods and
// by any quota, pool, policy, GPUNode or namespace change; and the usage
// status reconciler (one key per TenantQuota), woken by the quotas whose
// usage the admission reconciler saw move and by grant changes. Without it
// grants are decided but pods are not held to them (logged at start).
#pragma once

#include <memory>

#include "gpupool/quota_controller/admission_reconciler.h"
#include "gpupool/quota_controller/gate_config_reconciler.h"
#include "gpupool/quota_controller/grant_reconciler.h"
#include "gpupool/quota_controller/usage_status_reconciler.h"
#include "gpupool/runtime/event_recorder.h"
#include "webhook_setup.h"
#include "gpupool/runtime/controller.h"
#include "gpupool/runtime/manager.h"

namespace gpupool::controller {

class QuotaController {
 public:
  // `webhook` may be null (no quota gate).
  QuotaController(runtime::Manager& manager, int concurrency, runtime::EventRecorder* events, WebhookServer* webhook);

 private:
  std::unique_ptr<quota_controller::GrantReconciler> grants_;
  std::unique_ptr<runtime::Controller> grant_controller_;
  std::unique_ptr<quota_controller::GateConfigReconciler> gate_config_;
  std::unique_ptr<runtime::Controller> gate_config_controller_;
  std::unique_ptr<quota_controller::AdmissionReconciler> admission_;
  std::unique_ptr<runtime::Controller> admission_controller_;
  std::unique_ptr<quota_controller::UsageStatusReconciler> usage_status_;
  std::unique_ptr<runtime::Controller> usage_status_controller_;
};

}  // namespace gpupool::controller
