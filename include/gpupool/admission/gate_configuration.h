// The admission objects that make the pod gate binding (issue 13), as the
// controller applies them. Pure: JSON manifests from the covered namespaces
// (quota/charging.h), where the webhook server is, and its CA.
//
// - MutatingWebhookConfiguration `gpupool-mutating-webhook`, webhook
//   `gate.gpupool.io`: pod CREATE in the covered namespaces
//   (namespaceSelector on kubernetes.io/metadata.name), only pods requesting
//   GPU resources (matchConditions, CEL: no other pod ever waits on it),
//   served at /mutate-pods. failurePolicy Ignore: enforcement does not rest
//   on the webhook (next item), and an unreachable webhook must not turn
//   into a timeout for every GPU pod.
// - ValidatingAdmissionPolicy `gpupool-quota-gate` and its binding
//   `gpupool-quota-gate` (same namespaces): a GPU-requesting pod created
//   without the gate gpupool.io/quota, or with spec.nodeName set (which
//   would skip the scheduler and so the gate), is refused. The API server
//   evaluates it itself, so it holds while the webhook is down: GPU pods
//   in covered namespaces are then refused with its message (or can be
//   created with the gate already in their spec), never run ungated.
// With no namespace covered the webhook list is empty and the binding is
// not wanted (delete it).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpupool::admission {

inline constexpr const char* kMutatingConfigurationName = "gpupool-mutating-webhook";
inline constexpr const char* kGateWebhookName = "gate.gpupool.io";
inline constexpr const char* kGatePath = "/mutate-pods";
inline constexpr const char* kGatePolicyName = "gpupool-quota-gate";  // the policy and its binding

// `client_config`: the webhook's clientConfig without caBundle, as JSON
// ({"url": ...} or {"service": {...}}); `ca_pem`: the CA to trust.
std::string mutating_webhook_configuration(const std::vector<std::string>& namespaces, const std::string& client_config,
                                           const std::string& ca_pem);

std::string gate_policy();

// nullopt when `namespaces` is empty (the binding should not exist).
std::optional<std::string> gate_policy_binding(const std::vector<std::string>& namespaces);

}  // namespace gpupool::admission
