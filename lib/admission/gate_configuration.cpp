#include "gpupool/admission/gate_configuration.h"

#include <rapidjson/document.h>

#include "gpupool/kube/base64.h"
#include "gpupool/kube/client.h"
#include "gpupool/quota/charging.h"
#include "gpupool/quota/gpu_resources.h"

namespace gpupool::admission {
namespace {

std::string quoted(const std::string& s) {
  rapidjson::Document d;
  rapidjson::Value v(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), d.GetAllocator());
  return kube::to_json(v);
}

std::string string_array(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const auto& i : items) out += (out.size() > 1 ? "," : "") + quoted(i);
  return out + "]";
}

// Namespaces by name: the label the API server sets on every namespace.
std::string namespace_selector(const std::vector<std::string>& namespaces) {
  return R"({"matchExpressions":[{"key":"kubernetes.io/metadata.name","operator":"In","values":)" +
         string_array(namespaces) + "}]}";
}

const char* kManagedBy = R"("labels":{"app.kubernetes.io/managed-by":"gpupool-controller"})";

}  // namespace

std::string mutating_webhook_configuration(const std::vector<std::string>& namespaces, const std::string& client_config,
                                           const std::string& ca_pem) {
  std::string webhooks = "[]";
  if (!namespaces.empty()) {
    // client_config is an object: put caBundle inside it.
    const std::string with_ca = client_config.substr(0, client_config.rfind('}')) + R"(,"caBundle":)" +
                                quoted(kube::base64_encode(ca_pem)) + "}";
    webhooks = R"([{"name":")" + std::string(kGateWebhookName) + R"(","clientConfig":)" + with_ca +
               R"(,"rules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["pods"],)"
               R"("scope":"Namespaced"}],"namespaceSelector":)" + namespace_selector(namespaces) +
               R"(,"matchConditions":[{"name":"requests-gpu","expression":)" + quoted(quota::gpu_request_cel()) +
               R"(}],"failurePolicy":"Ignore","sideEffects":"None","admissionReviewVersions":["v1"],)"
               R"("timeoutSeconds":5,"matchPolicy":"Equivalent","reinvocationPolicy":"IfNeeded"}])";
  }
  return R"({"apiVersion":"admissionregistration.k8s.io/v1","kind":"MutatingWebhookConfiguration","metadata":{"name":")" +
         std::string(kMutatingConfigurationName) + R"(",)" + kManagedBy + R"(},"webhooks":)" + webhooks + "}";
}

std::string gate_policy() {
  const std::string gate = quota::kQuotaGate;
  const std::string has_gate =
      "has(object.spec.schedulingGates) && object.spec.schedulingGates.exists(g, g.name == '" + gate + "')";
  const std::string gate_message =
      "'GPU pods in namespace ' + request.namespace + ' wait at the quota gate: spec.schedulingGates must hold " + gate +
      ". The gpupool controller webhook adds it and did not (is the controller running? kubectl -n gpupool-system get "
      "pods). Add the gate to the pod yourself, or retry once the controller is back.'";
  return R"({"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":")" +
         std::string(kGatePolicyName) + R"(",)" + kManagedBy +
         R"(},"spec":{"failurePolicy":"Fail","matchConstraints":{"resourceRules":[{"apiGroups":[""],"apiVersions":["v1"],)"
         R"("operations":["CREATE"],"resources":["pods"]}]},"matchConditions":[{"name":"requests-gpu","expression":)" +
         quoted(quota::gpu_request_cel()) + R"(}],"validations":[{"expression":)" + quoted(has_gate) +
         R"(,"messageExpression":)" + quoted(gate_message) +
         R"(,"reason":"Forbidden"},{"expression":"!has(object.spec.nodeName) || object.spec.nodeName == ''",)"
         R"("message":"GPU pods in namespaces with a TenantQuota may not set spec.nodeName: it skips the scheduler and )"
         R"(so the quota gate gpupool.io/quota; use a nodeSelector or affinity","reason":"Forbidden"}]}})";
}

std::optional<std::string> gate_policy_binding(const std::vector<std::string>& namespaces) {
  if (namespaces.empty()) return std::nullopt;
  return R"({"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":")" +
         std::string(kGatePolicyName) + R"(",)" + kManagedBy + R"(},"spec":{"policyName":")" + kGatePolicyName +
         R"(","validationActions":["Deny"],"matchResources":{"namespaceSelector":)" + namespace_selector(namespaces) + "}}}";
}

}  // namespace gpupool::admission
