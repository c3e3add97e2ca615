// gpu_resources: which resource names are GPUs, whether a pod asks for one,
// and the CEL expression the API server evaluates for the same rule.
#include "gpupool/quota/gpu_resources.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpupool/kube/json_projection.h"

namespace gpupool::quota {
namespace {

TEST(GpuResources, IsGpuResource) {
  struct Row {
    std::string name;
    bool gpu;
  };
  const std::vector<Row> rows = {
      {"nvidia.com/gpu", true},
      {"nvidia.com/gpu.shared", true},
      {"nvidia.com/mig-1g.10gb", true},
      {"nvidia.com/mig-3g.40gb.shared", true},
      {"nvidia.com/mig-", true},  // a prefix rule, as the CEL startsWith reads it
      {"amd.com/gpu", true},
      {"amd.com/cpx_nps4", true},  // a partitioned AMD GPU's name
      {"amd.com/", true},
      {"gpupool.io/gpu", true},
      {"nvidia.com/gpux", false},
      {"nvidia.com/gpu.shared.shared", false},
      {"nvidia.com/mig", false},
      {"nvidia.com/vgpu", false},
      {"amd.com", false},
      {"gpupool.io/gpus", false},
      {"gpupool.io/quota", false},
      {"example.com/gpu", false},
      {"NVIDIA.COM/GPU", false},
      {"cpu", false},
      {"memory", false},
      {"", false},
  };
  for (const auto& row : rows) EXPECT_EQ(is_gpu_resource(row.name), row.gpu) << row.name;
}

TEST(GpuResources, RequestsGpu) {
  struct Row {
    std::string name;
    std::string spec;
    bool gpu;
  };
  const std::vector<Row> rows = {
      {"a container's request", R"({"containers":[{"name":"a","resources":{"requests":{"nvidia.com/gpu":"1"}}}]})", true},
      {"a container's limit alone", R"({"containers":[{"name":"a","resources":{"limits":{"amd.com/gpu":"1"}}}]})", true},
      {"the second container", R"({"containers":[{"name":"a"},{"name":"b","resources":{"limits":{"gpupool.io/gpu":"1"}}}]})",
       true},
      {"an init container",
       R"({"initContainers":[{"name":"i","resources":{"requests":{"nvidia.com/mig-1g.10gb":"1"}}}],"containers":[{"name":"a"}]})",
       true},
      {"a sidecar",
       R"({"initContainers":[{"name":"s","restartPolicy":"Always","resources":{"limits":{"nvidia.com/gpu.shared":"1"}}}]})",
       true},
      {"named at 0 still names it", R"({"containers":[{"name":"a","resources":{"requests":{"nvidia.com/gpu":"0"}}}]})", true},
      {"cpu and memory only",
       R"({"containers":[{"name":"a","resources":{"requests":{"cpu":"1"},"limits":{"memory":"1Gi"}}}]})", false},
      {"overhead is not a container's request", R"({"containers":[{"name":"a"}],"overhead":{"nvidia.com/gpu":"1"}})", false},
      {"ephemeral containers cannot request",
       R"({"containers":[{"name":"a"}],"ephemeralContainers":[{"name":"e","resources":{"limits":{"nvidia.com/gpu":"1"}}}]})",
       false},
      {"a nodeSelector or toleration is not a request",
       R"({"containers":[{"name":"a"}],"nodeSelector":{"nvidia.com/gpu":"true"},"tolerations":[{"key":"nvidia.com/gpu"}]})",
       false},
      {"no containers", R"({})", false},
      {"DRA resource claims (their DeviceClass is in the claim)",
       R"({"containers":[{"name":"a"}],"resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"t"}]})", true},
  };
  for (const auto& row : rows) {
    EXPECT_EQ(requests_gpu(kube::project_pod(R"({"metadata":{"name":"p"},"spec":)" + row.spec + "}")), row.gpu)
        << row.name;
  }
}

TEST(GpuResources, CelSpellsEachRuleAndGuardsOptionalFields) {
  const std::string cel = gpu_request_cel();
  for (const std::string part : {
           "k == 'nvidia.com/gpu'",
           "k == 'nvidia.com/gpu.shared'",
           "k.startsWith('nvidia.com/mig-')",
           "k.startsWith('amd.com/')",
           "k == 'gpupool.io/gpu'",
           "has(object.spec.containers) && object.spec.containers.exists(c, ",
           "has(object.spec.initContainers) && object.spec.initContainers.exists(c, ",
           "has(c.resources) && ",
           "has(c.resources.requests) && c.resources.requests.exists(k, ",
           "has(c.resources.limits) && c.resources.limits.exists(k, ",
           "has(object.spec.resourceClaims) && size(object.spec.resourceClaims) > 0",
       }) {
    EXPECT_NE(cel.find(part), std::string::npos) << part << "\nin: " << cel;
  }
  EXPECT_EQ(cel.find("ephemeralContainers"), std::string::npos);
  EXPECT_EQ(cel.find('"'), std::string::npos) << "embedded in JSON and YAML by others";
  // Balanced parentheses: a cheap check that the composition is well formed.
  int depth = 0;
  for (char ch : cel) {
    depth += ch == '(' ? 1 : ch == ')' ? -1 : 0;
    ASSERT_GE(depth, 0) << cel;
  }
  EXPECT_EQ(depth, 0) << cel;
}

}  // namespace
}  // namespace gpupool::quota
