#include "gpupool/quota_controller/gate_config_reconciler.h"

#include <spdlog/spdlog.h>

#include "gpupool/admission/gate_configuration.h"
#include "gpupool/kube/errors.h"
#include "gpupool/quota_controller/pool_view.h"

namespace gpupool::quota_controller {
namespace {

kube::ResourceRef admission_ref(const char* resource, const std::string& name) {
  return {{"admissionregistration.k8s.io", "v1", resource}, "", name, ""};
}

}  // namespace

runtime::Result GateConfigReconciler::reconcile(const runtime::Request&, std::stop_token) {
  std::vector<quota::ChargeableQuota> quotas;
  // Woken by quotas' specs only (rarely): decoded afresh, none kept between passes.
  for (const auto& q : QuotaReader().read(quotas_)) quotas.push_back(chargeable(*q));
  const auto covered = quota::covered_namespaces(quota::build_charge_map(std::move(quotas), read_namespaces(namespaces_), {}));

  kube::PatchOptions po;
  po.field_manager = "gpupool-controller";
  po.force = true;
  const std::string webhook = admission::mutating_webhook_configuration(covered, webhook_.client_config, webhook_.ca_bundle());
  const std::string policy = admission::gate_policy();
  const auto binding = admission::gate_policy_binding(covered);

  // Policy first, binding last: a binding must never name a policy that is not there.
  if (policy != applied_policy_) {
    client_.patch(admission_ref("validatingadmissionpolicies", admission::kGatePolicyName), kube::PatchType::Apply, policy, po);
    applied_policy_ = policy;
  }
  if (webhook != applied_webhook_) {
    client_.patch(admission_ref("mutatingwebhookconfigurations", admission::kMutatingConfigurationName),
                  kube::PatchType::Apply, webhook, po);
    applied_webhook_ = webhook;
  }
  const std::string binding_text = binding.value_or("");
  if (binding_text != applied_binding_) {
    const auto ref = admission_ref("validatingadmissionpolicybindings", admission::kGatePolicyName);
    if (binding) {
      client_.patch(ref, kube::PatchType::Apply, *binding, po);
    } else {
      try {
        client_.remove(ref);
      } catch (const kube::ApiError& e) {
        if (!e.is_not_found()) throw;
      }
    }
    applied_binding_ = binding_text;
    spdlog::info("quota gate: {} namespace(s) covered{}", covered.size(),
                 covered.empty() ? "" : " (first: " + covered.front() + ")");
  }
  return runtime::Result::done();
}

}  // namespace gpupool::quota_controller
