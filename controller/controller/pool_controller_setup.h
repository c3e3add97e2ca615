// Wires the GPUPool reconciler into the manager: its informers (GPUPools,
// GPUPolicies, Nodes, GPUNodes, the agents' Leases), which events wake which
// pools, and the controller itself; and, on the same informers, the GPU
// health reconciler, the monitoring reconciler, the device plugin's ConfigMap
// and the GPUPolicies' status.
#pragma once

#include <memory>
#include <string>

#include "gpupool/gpu/mig_parted.h"
#include "gpupool/pool_controller/health_reconciler.h"
#include "gpupool/pool_controller/monitoring_reconciler.h"
#include "gpupool/pool_controller/pool_reconciler.h"
#include "gpupool/pool_controller/support_reconcilers.h"
#include "gpupool/runtime/controller.h"
#include "gpupool/runtime/event_recorder.h"
#include "gpupool/runtime/manager.h"

namespace gpupool::controller {

class PoolController {
 public:
  // `device_plugin_configmap`: "namespace/name" of the device plugin's ConfigMap.
  // `monitoring`: how pools' monitoring objects are made (their namespace is
  // set to `agent_namespace`, where the agents' pods are; events to `events`).
  PoolController(runtime::Manager& manager, const std::string& agent_namespace, int concurrency,
                 const gpu::MigPartedConfig* mig_parted, runtime::EventRecorder* events,
                 const std::string& device_plugin_configmap,
                 pool_controller::MonitoringReconcilerOptions monitoring);

 private:
  // Shared by the pool and health reconcilers (declared first: they hold it).
  std::unique_ptr<pool_controller::MembershipCache> membership_ = std::make_unique<pool_controller::MembershipCache>();
  std::unique_ptr<pool_controller::PoolReconciler> reconciler_;
  std::unique_ptr<runtime::Controller> controller_;
  std::unique_ptr<pool_controller::DevicePluginConfigReconciler> plugin_config_;
  std::unique_ptr<runtime::Controller> plugin_config_controller_;
  std::unique_ptr<pool_controller::PolicyStatusReconciler> policy_status_;
  std::unique_ptr<runtime::Controller> policy_status_controller_;
  std::unique_ptr<pool_controller::HealthReconciler> health_;
  std::unique_ptr<runtime::Controller> health_controller_;
  std::unique_ptr<pool_controller::MonitoringReconciler> monitoring_;
  std::unique_ptr<runtime::Controller> monitoring_controller_;
};

}  // namespace gpupool::controller
