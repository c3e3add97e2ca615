#include "gpupool/admission/agent_eviction.h"

#include "gpupool/quota/gpu_resources.h"

namespace gpupool::admission {
namespace {

constexpr std::string_view kServiceAccountPrefix = "system:serviceaccount:";
constexpr std::string_view kAgentSuffix = ":gpupool-agent";

AdmissionResponse refuse(const AdmissionRequest& request, int code, const char* reason, std::string message) {
  AdmissionResponse r;
  r.uid = request.uid;
  r.allowed = false;
  r.code = code;
  r.reason = reason;
  r.message = std::move(message);
  return r;
}

}  // namespace

bool is_agent_user(const std::string& username) {
  return username.size() > kServiceAccountPrefix.size() + kAgentSuffix.size() &&
         username.starts_with(kServiceAccountPrefix) && username.ends_with(kAgentSuffix);
}

std::string agent_user_cel() {
  return "request.userInfo.username.startsWith('system:serviceaccount:') && "
         "request.userInfo.username.endsWith(':gpupool-agent')";
}

AdmissionResponse decide_agent_eviction(const AdmissionRequest& request, const std::optional<kube::PodProjection>& pod) {
  AdmissionResponse allowed;
  allowed.uid = request.uid;
  if (!is_agent_user(request.username) || request.sub_resource != "eviction" || request.operation != "CREATE") return allowed;

  const auto claim = request.extra.find(kNodeNameClaim);
  if (claim == request.extra.end() || claim->second.size() != 1 || claim->second.front().empty()) {
    return refuse(request, 403, "Forbidden",
                  "gpupool-agent: the request carries no node-name claim (" + request.username +
                      "): the agent must use its pod's bound service account token");
  }
  const std::string& node = claim->second.front();
  const std::string pod_key = request.ns + "/" + request.name;
  if (!pod) return refuse(request, 404, "NotFound", "pods \"" + request.name + "\" not found");
  if (pod->node_name != node) {
    return refuse(request, 403, "Forbidden",
                  "gpupool-agent of node " + node + " may only evict pods on node " + node + ", not " + pod_key +
                      (pod->node_name.empty() ? std::string(" (not scheduled)") : " (on node " + pod->node_name + ")"));
  }
  if (!quota::requests_gpu(*pod)) {
    return refuse(request, 403, "Forbidden",
                  "gpupool-agent of node " + node + " may only evict GPU pods, and " + pod_key + " requests no GPU");
  }
  return allowed;
}

std::string agent_eviction_webhook(const std::string& client_config) {
  return std::string(R"({"name":")") + kAgentEvictionWebhookName + R"(","clientConfig":)" + client_config +
         R"(,"rules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["pods/eviction"],)"
         R"("scope":"Namespaced"}],"matchConditions":[{"name":"is-gpupool-agent","expression":")" + agent_user_cel() +
         R"("}],"failurePolicy":"Fail","sideEffects":"None","admissionReviewVersions":["v1"],"timeoutSeconds":10,)"
         R"("matchPolicy":"Equivalent"})";
}

}  // namespace gpupool::admission
