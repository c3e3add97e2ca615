// The controller's two small reconcilers besides the pools:
// - DevicePluginConfigReconciler keeps the NVIDIA device plugin's ConfigMap:
//   one named config (node/device_plugin_config.h) for every MIG strategy and
//   sharing setting that a pool wants or a GPUNode's spec still has, plus the
//   default (mixed, exclusive) for nodes in no pool. Each agent selects its
//   own by the node label nvidia.com/device-plugin.config. Applied by
//   server-side apply; configs nothing uses any more are dropped.
// - PolicyStatusReconciler lists in each GPUPolicy's status the pools that
//   reference it (Ready True, reason InUse or Unused).
#pragma once

#include <mutex>
#include <string>
#include <unordered_map>

#include "gpupool/api/common_types.h"
#include "gpupool/gpu/catalog.h"
#include "gpupool/kube/client.h"
#include "gpupool/kube/object.h"
#include "gpupool/runtime/controller.h"
#include "gpupool/runtime/store.h"

namespace gpupool::pool_controller {

class DevicePluginConfigReconciler : public runtime::Reconciler {
 public:
  // One key does it all; `request` is ignored.
  DevicePluginConfigReconciler(kube::Client& client, runtime::Store<kube::Object>& pools,
                               runtime::Store<kube::Object>& gpunodes, const gpu::Catalog& catalog,
                               std::string configmap_namespace, std::string configmap_name);
  runtime::Result reconcile(const runtime::Request& request, std::stop_token stop) override;

 private:
  // What each GPUNode's spec asks of the device plugin, as of the
  // resourceVersion it was read at: a pass decodes only GPUNodes that changed
  // since the last (agents' status writes change most; decoding all of them
  // each pass cost this controller most of its CPU during a rollout).
  struct NodeWants {
    std::string resource_version;
    bool readable = false;
    api::MIGStrategy strategy = api::MIGStrategy::mixed;
    api::Sharing sharing;
  };

  kube::Client& client_;
  runtime::Store<kube::Object>& pools_;
  runtime::Store<kube::Object>& gpunodes_;
  const gpu::Catalog& catalog_;
  std::string namespace_, name_;
  std::mutex mu_;  // the one key is never reconciled twice at once; held anyway
  std::unordered_map<std::string, NodeWants> wants_;  // GPUNode name ->
};

class PolicyStatusReconciler : public runtime::Reconciler {
 public:
  PolicyStatusReconciler(kube::Client& client, runtime::Store<kube::Object>& policies, runtime::Store<kube::Object>& pools)
      : client_(client), policies_(policies), pools_(pools) {}
  runtime::Result reconcile(const runtime::Request& request, std::stop_token stop) override;

 private:
  kube::Client& client_;
  runtime::Store<kube::Object>& policies_;
  runtime::Store<kube::Object>& pools_;
};

}  // namespace gpupool::pool_controller
