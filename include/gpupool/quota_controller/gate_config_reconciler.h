// Keeps the admission objects of the pod gate (admission/gate_configuration.h)
// in step with the namespaces TenantQuotas cover: the
// MutatingWebhookConfiguration (with the webhook server's current CA), the
// ValidatingAdmissionPolicy and its binding. Run by the leader only; any key
// means "check everything". Writes by server-side apply (field manager
// gpupool-controller) only what changed since the last write; deletes the
// binding while no namespace is covered.
#pragma once

#include <functional>
#include <string>

#include "gpupool/kube/client.h"
#include "gpupool/kube/object.h"
#include "gpupool/runtime/controller.h"
#include "gpupool/runtime/store.h"

namespace gpupool::quota_controller {

struct GateWebhook {
  std::function<std::string()> ca_bundle;  // PEM, read on every pass
  std::string client_config;               // {"url": ".../mutate-pods"} or {"service": {...}}
};

class GateConfigReconciler : public runtime::Reconciler {
 public:
  GateConfigReconciler(kube::Client& client, runtime::Store<kube::Object>& quotas,
                       runtime::Store<kube::Object>& namespaces, GateWebhook webhook)
      : client_(client), quotas_(quotas), namespaces_(namespaces), webhook_(std::move(webhook)) {}

  runtime::Result reconcile(const runtime::Request& request, std::stop_token stop) override;

 private:
  kube::Client& client_;
  runtime::Store<kube::Object>& quotas_;
  runtime::Store<kube::Object>& namespaces_;
  GateWebhook webhook_;
  std::string applied_webhook_, applied_policy_, applied_binding_;  // what was last written (a process cache)
};

}  // namespace gpupool::quota_controller
