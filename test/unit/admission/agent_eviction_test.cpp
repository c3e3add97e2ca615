#include "gpupool/admission/agent_eviction.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace gpupool::admission {
namespace {

constexpr const char* kAgent = "system:serviceaccount:gpupool-system:gpupool-agent";

kube::PodProjection pod_on(const std::string& node, const std::string& resource) {
  kube::PodProjection p;
  p.ns = "team-a";
  p.name = "train-0";
  p.node_name = node;
  kube::PodProjection::Container c;
  c.name = "main";
  if (!resource.empty()) c.limits.emplace_back(resource, "1");
  p.containers.push_back(c);
  return p;
}

AdmissionRequest eviction_by(const std::string& username, const std::vector<std::string>& node_claim) {
  AdmissionRequest r;
  r.uid = "u-1";
  r.operation = "CREATE";
  r.kind = "Eviction";
  r.ns = "team-a";
  r.name = "train-0";
  r.sub_resource = "eviction";
  r.username = username;
  if (!node_claim.empty()) r.extra[kNodeNameClaim] = node_claim;
  return r;
}

TEST(AgentEviction, Table) {
  struct Row {
    const char* what;
    AdmissionRequest request;
    std::optional<kube::PodProjection> pod;
    bool allowed;
    int code;
    const char* message_has;
  };
  Row rows[] = {
      {"a GPU pod on the agent's node", eviction_by(kAgent, {"gpu-1"}), pod_on("gpu-1", "nvidia.com/gpu"), true, 0, ""},
      {"a MIG pod on the agent's node", eviction_by(kAgent, {"gpu-1"}), pod_on("gpu-1", "nvidia.com/mig-1g.10gb"), true, 0, ""},
      {"an agent in another namespace", eviction_by("system:serviceaccount:ops:gpupool-agent", {"gpu-1"}),
       pod_on("gpu-1", "amd.com/gpu"), true, 0, ""},
      {"a pod on another node", eviction_by(kAgent, {"gpu-1"}), pod_on("gpu-2", "nvidia.com/gpu"), false, 403,
       "gpupool-agent of node gpu-1 may only evict pods on node gpu-1, not team-a/train-0 (on node gpu-2)"},
      {"a pod not scheduled", eviction_by(kAgent, {"gpu-1"}), pod_on("", "nvidia.com/gpu"), false, 403, "(not scheduled)"},
      {"a pod without a GPU", eviction_by(kAgent, {"gpu-1"}), pod_on("gpu-1", "cpu"), false, 403,
       "may only evict GPU pods, and team-a/train-0 requests no GPU"},
      {"no node claim", eviction_by(kAgent, {}), pod_on("gpu-1", "nvidia.com/gpu"), false, 403, "carries no node-name claim"},
      {"two node claims", eviction_by(kAgent, {"gpu-1", "gpu-2"}), pod_on("gpu-1", "nvidia.com/gpu"), false, 403,
       "carries no node-name claim"},
      {"an empty node claim", eviction_by(kAgent, {""}), pod_on("", "nvidia.com/gpu"), false, 403, "carries no node-name claim"},
      {"a pod that is gone", eviction_by(kAgent, {"gpu-1"}), std::nullopt, false, 404, "pods \"train-0\" not found"},
      {"someone else's eviction", eviction_by("system:serviceaccount:team-a:deployer", {"gpu-1"}), pod_on("gpu-2", "cpu"), true,
       0, ""},
      {"a user named like the agent", eviction_by("gpupool-agent", {}), std::nullopt, true, 0, ""},
      {"a service account whose name ends like it", eviction_by("system:serviceaccount:x:not-gpupool-agent", {}), std::nullopt,
       true, 0, ""},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.what);
    const AdmissionResponse r = decide_agent_eviction(row.request, row.pod);
    EXPECT_EQ(r.uid, "u-1");
    EXPECT_EQ(r.allowed, row.allowed);
    if (!row.allowed) {
      EXPECT_EQ(r.code, row.code);
      EXPECT_NE(r.message.find(row.message_has), std::string::npos) << r.message;
    }
  }
}

TEST(AgentEviction, OnlyEvictionsAreJudged) {
  AdmissionRequest status_write = eviction_by(kAgent, {});
  status_write.sub_resource = "status";
  EXPECT_TRUE(decide_agent_eviction(status_write, std::nullopt).allowed);
  AdmissionRequest update = eviction_by(kAgent, {});
  update.operation = "UPDATE";
  EXPECT_TRUE(decide_agent_eviction(update, std::nullopt).allowed);
}

TEST(AgentEviction, UserRuleMatchesTheCelOne) {
  EXPECT_TRUE(is_agent_user(kAgent));
  EXPECT_FALSE(is_agent_user("system:serviceaccount:gpupool-agent"));  // no namespace
  EXPECT_FALSE(is_agent_user("system:serviceaccount::gpupool-agent2"));
  EXPECT_EQ(agent_user_cel(),
            "request.userInfo.username.startsWith('system:serviceaccount:') && "
            "request.userInfo.username.endsWith(':gpupool-agent')");
}

TEST(AgentEviction, WebhookEntryTargetsAgentsEvictionsOnly) {
  const std::string w = agent_eviction_webhook(R"({"url":"https://127.0.0.1:9443/validate-agent-eviction"})");
  rapidjson::Document d;
  d.Parse(w.c_str());
  ASSERT_FALSE(d.HasParseError()) << w;
  EXPECT_STREQ(d["name"].GetString(), kAgentEvictionWebhookName);
  EXPECT_STREQ(d["rules"][0]["resources"][0].GetString(), "pods/eviction");
  EXPECT_STREQ(d["rules"][0]["operations"][0].GetString(), "CREATE");
  EXPECT_EQ(std::string(d["matchConditions"][0]["expression"].GetString()), agent_user_cel());
  EXPECT_STREQ(d["failurePolicy"].GetString(), "Fail");
  EXPECT_STREQ(d["clientConfig"]["url"].GetString(), "https://127.0.0.1:9443/validate-agent-eviction");
}

}  // namespace
}  // namespace gpupool::admission

namespace gpupool::admission {
namespace {

// The fields of an eviction's AdmissionReview as kube-apiserver sends it.
TEST(AdmissionReview, ReadsSubresourceAndUserInfo) {
  std::string error;
  const auto r = parse_admission_review(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{
    "uid":"u-2","kind":{"group":"policy","version":"v1","kind":"Eviction"},"namespace":"team-a","name":"train-0",
    "subResource":"eviction","operation":"CREATE","userInfo":{"username":"system:serviceaccount:gpupool-system:gpupool-agent",
    "uid":"x","groups":["system:serviceaccounts"],"extra":{"authentication.kubernetes.io/node-name":["gpu-1"],
    "authentication.kubernetes.io/pod-name":["agent-x"],"odd":"not-a-list","mixed":["a",1]}},
    "object":{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"train-0","namespace":"team-a"}}}})",
                                        error);
  ASSERT_TRUE(r) << error;
  EXPECT_EQ(r->sub_resource, "eviction");
  EXPECT_EQ(r->username, "system:serviceaccount:gpupool-system:gpupool-agent");
  EXPECT_EQ(r->extra.at(kNodeNameClaim), std::vector<std::string>{"gpu-1"});
  EXPECT_EQ(r->extra.at("authentication.kubernetes.io/pod-name"), std::vector<std::string>{"agent-x"});
  EXPECT_FALSE(r->extra.count("odd"));
  EXPECT_EQ(r->extra.at("mixed"), std::vector<std::string>{"a"});
}

}  // namespace
}  // namespace gpupool::admission

namespace gpupool::admission {
namespace {

// Whoever reaches the webhook's port can send a body: one nested past the
// limit is refused before parsing (it overflowed the stack: fuzz corpus
// admission_review/regression-deep-nesting), strings do not count.
TEST(AdmissionReview, DeepNestingIsRefusedBeforeParsing) {
  std::string error;
  EXPECT_FALSE(parse_admission_review(std::string(200000, '['), error));
  EXPECT_EQ(error, "AdmissionReview nests deeper than 512 levels");
  const std::string brackets_in_a_string(5000, '[');
  const auto ok = parse_admission_review(
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","name":")" + brackets_in_a_string +
          R"(\"[","object":)" + std::string(100, '[') + std::string(100, ']') + "}}",
      error);
  ASSERT_TRUE(ok) << error;
  EXPECT_EQ(ok->name, brackets_in_a_string + "\"[");
}

}  // namespace
}  // namespace gpupool::admission
