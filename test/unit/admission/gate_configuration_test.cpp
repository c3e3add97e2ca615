// The pod gate's admission objects: the names, selectors and policies others rely on.
#include <gtest/gtest.h>

#include "gpupool/admission/gate_configuration.h"
#include "gpupool/kube/client.h"
#include "gpupool/kube/json_access.h"
#include "gpupool/quota/gpu_resources.h"

namespace gpupool::admission {
namespace {

TEST(GateConfiguration, WebhookCoversTheNamespacesAndOnlyGpuPods) {
  const auto doc = kube::parse_json(
      mutating_webhook_configuration({"ml-a", "ml-b"}, R"({"url":"https://127.0.0.1:9443/mutate-pods"})", "CA PEM"));
  EXPECT_EQ(kube::string_at(doc, {"metadata", "name"}), "gpupool-mutating-webhook");
  const auto& w = doc["webhooks"][0];
  EXPECT_EQ(kube::string_at(w, {"name"}), "gate.gpupool.io");
  EXPECT_EQ(kube::string_at(w, {"failurePolicy"}), "Ignore") << "enforcement rests on the admission policy";
  EXPECT_EQ(kube::string_at(w, {"clientConfig", "url"}), "https://127.0.0.1:9443/mutate-pods");
  EXPECT_EQ(kube::string_at(w, {"clientConfig", "caBundle"}), "Q0EgUEVN");
  EXPECT_EQ(kube::to_json(w["namespaceSelector"]),
            R"({"matchExpressions":[{"key":"kubernetes.io/metadata.name","operator":"In","values":["ml-a","ml-b"]}]})");
  EXPECT_EQ(kube::string_at(w["matchConditions"][0], {"expression"}), quota::gpu_request_cel());
  EXPECT_EQ(kube::to_json(w["rules"][0]["operations"]), R"(["CREATE"])");
}

TEST(GateConfiguration, NothingCoveredNoWebhookNoBinding) {
  const auto doc = kube::parse_json(mutating_webhook_configuration({}, R"({"url":"https://x/mutate-pods"})", "CA"));
  EXPECT_EQ(kube::to_json(doc["webhooks"]), "[]");
  EXPECT_FALSE(gate_policy_binding({}));
}

TEST(GateConfiguration, PolicyRefusesUngatedGpuPodsAndNodeName) {
  const auto policy = kube::parse_json(gate_policy());
  EXPECT_EQ(kube::string_at(policy, {"metadata", "name"}), "gpupool-quota-gate");
  EXPECT_EQ(kube::string_at(policy, {"spec", "failurePolicy"}), "Fail");
  EXPECT_EQ(kube::string_at(policy["spec"]["matchConditions"][0], {"expression"}), quota::gpu_request_cel());
  const std::string validations = kube::to_json(policy["spec"]["validations"]);
  EXPECT_NE(validations.find("g.name == 'gpupool.io/quota'"), std::string::npos);
  EXPECT_NE(validations.find("object.spec.nodeName"), std::string::npos);

  const auto binding = kube::parse_json(*gate_policy_binding({"ml-a"}));
  EXPECT_EQ(kube::string_at(binding, {"spec", "policyName"}), "gpupool-quota-gate");
  EXPECT_EQ(kube::to_json(binding["spec"]["validationActions"]), R"(["Deny"])");
  EXPECT_EQ(kube::to_json(binding["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"][0]["values"]),
            R"(["ml-a"])");
}

}  // namespace
}  // namespace gpupool::admission
