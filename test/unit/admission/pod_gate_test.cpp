// The pod gate webhook adds gpupool.io/quota to GPU pods only, once.
#include <gtest/gtest.h>

#include "gpupool/admission/pod_gate.h"
#include "gpupool/kube/base64.h"
#include "gpupool/kube/client.h"

namespace gpupool::admission {
namespace {

AdmissionRequest request(const std::string& pod_json, const std::string& operation = "CREATE") {
  const std::string body =
      R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",)"
      R"("kind":{"group":"","version":"v1","kind":"Pod"},"operation":")" + operation +
      R"(","name":"p","namespace":"ml","object":)" + pod_json + "}}";
  std::string error;
  auto r = parse_admission_review(body, error);
  EXPECT_TRUE(r) << error;
  return std::move(*r);
}

std::string gpu_pod(const std::string& spec_extra = "") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ml"},"spec":{)" + spec_extra +
         R"("containers":[{"name":"c","image":"x","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}})";
}

TEST(PodGate, AddsTheGateToAGpuPod) {
  const auto r = gate_pod(request(gpu_pod()));
  EXPECT_TRUE(r.allowed);
  EXPECT_EQ(r.uid, "u-1");
  ASSERT_TRUE(r.json_patch);
  EXPECT_EQ(*r.json_patch, R"([{"op":"add","path":"/spec/schedulingGates","value":[{"name":"gpupool.io/quota"}]}])");
}

TEST(PodGate, AppendsToOtherGates) {
  const auto r = gate_pod(request(gpu_pod(R"("schedulingGates":[{"name":"other.io/wait"}],)")));
  ASSERT_TRUE(r.json_patch);
  EXPECT_EQ(*r.json_patch, R"([{"op":"add","path":"/spec/schedulingGates/-","value":{"name":"gpupool.io/quota"}}])");
}

TEST(PodGate, LeavesOtherPodsAlone) {
  struct Case {
    const char* name;
    AdmissionRequest req;
  };
  Case cases[] = {
      {"already gated", request(gpu_pod(R"("schedulingGates":[{"name":"gpupool.io/quota"}],)"))},
      {"no GPU", request(R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}})")},
      {"an update", request(gpu_pod(), "UPDATE")},
  };
  for (auto& c : cases) {
    const auto r = gate_pod(c.req);
    EXPECT_TRUE(r.allowed) << c.name;
    EXPECT_FALSE(r.json_patch) << c.name;
  }
}

TEST(PodGate, GatesInitContainersAskingForMigSlices) {
  const auto r = gate_pod(request(
      R"({"metadata":{"name":"p"},"spec":{"initContainers":[{"name":"i","resources":{"requests":{"nvidia.com/mig-1g.10gb":"1"}}}],)"
      R"("containers":[{"name":"c"}]}})"));
  EXPECT_TRUE(r.json_patch);
}

}  // namespace
}  // namespace gpupool::admission
