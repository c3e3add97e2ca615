// Confines a node agent's evictions to GPU pods on its own node (issue 15).
// Pure.
//
// The ValidatingAdmissionPolicies of config/admission confine every other
// write of an agent's token, but an Eviction names only the pod, and a policy
// cannot look the pod up: so the controller's webhook does, for evictions
// asked by a gpupool-agent service account alone (the webhook's
// matchConditions, agent_eviction_webhook below). The controller reads the
// pod from the API server and calls decide_agent_eviction, which allows it
// when
//   - the requester carries exactly one node-name claim (the bound token of
//     the agent's pod: userInfo.extra authentication.kubernetes.io/node-name),
//   - the pod is on that node (spec.nodeName), and
//   - the pod requests a GPU (quota::requests_gpu: the agent drains GPU pods
//     only, node/drain_plan.h).
// A pod that does not exist is refused with 404 NotFound, so the agent sees
// what the eviction itself would have answered. Requests that are not an
// agent's eviction (matchConditions keep them away; a misconfigured webhook
// could send them) are allowed untouched: this webhook confines agents and
// nothing else.
//
// failurePolicy Fail: while the controller's webhook is unreachable an
// agent's evictions are refused (its drain waits and retries, and says so in
// the GPUNode's drain operation); nobody else's are affected.
#pragma once

#include <optional>
#include <string>

#include "gpupool/admission/admission_review.h"
#include "gpupool/kube/json_projection.h"

namespace gpupool::admission {

inline constexpr const char* kAgentEvictionWebhookName = "agent-eviction.gpupool.io";
inline constexpr const char* kAgentEvictionPath = "/validate-agent-eviction";
inline constexpr const char* kNodeNameClaim = "authentication.kubernetes.io/node-name";

// Whether `username` is a gpupool-agent service account (in any namespace),
// the rule config/admission/agent_confinement.yaml's matchConditions use.
bool is_agent_user(const std::string& username);

// The CEL of that rule, for matchConditions.
std::string agent_user_cel();

// `pod`: the evicted pod as the API server has it, nullopt when there is none.
AdmissionResponse decide_agent_eviction(const AdmissionRequest& request, const std::optional<kube::PodProjection>& pod);

// The webhook entry (one element of a ValidatingWebhookConfiguration's
// `webhooks`) as JSON; `client_config`: the clientConfig object, caBundle
// included when there is one.
std::string agent_eviction_webhook(const std::string& client_config);

}  // namespace gpupool::admission
