// pod_requests: requests as kube-scheduler counts them, GPU resources only.
#include <gtest/gtest.h>

#include "gpupool/kube/json_projection.h"
#include "gpupool/quota/gpu_resources.h"
#include "gpupool/quota/pod_requests.h"

namespace gpupool::quota {
namespace {

bool gpu_resource(std::string_view name) { return name.starts_with("nvidia.com/") || name == "amd.com/gpu"; }

Amounts requests_of(const std::string& spec_json, std::vector<std::string>* problems = nullptr) {
  const auto pod = kube::project_pod(R"({"metadata":{"name":"p"},"spec":)" + spec_json + "}");
  PodRequests r = pod_requests(pod, gpu_resource);
  if (problems) *problems = r.problems;
  return r.requests;
}

constexpr std::int64_t M = kMicro;

struct Row {
  std::string name;
  std::string spec;
  Amounts expected;
};

std::vector<Row> scheduler_rows() {
  return {
      {"containers add up, cpu is not counted",
       R"({"containers":[{"name":"a","resources":{"requests":{"nvidia.com/gpu":"1","cpu":"2"}}},
                         {"name":"b","resources":{"requests":{"nvidia.com/gpu":"2"}}}]})",
       {{"nvidia.com/gpu", 3 * M}}},
      {"a limit alone is the request",
       R"({"containers":[{"name":"a","resources":{"limits":{"nvidia.com/mig-1g.10gb":"2"}}}]})",
       {{"nvidia.com/mig-1g.10gb", 2 * M}}},
      {"the largest init container when larger than the containers",
       R"({"initContainers":[{"name":"i","resources":{"requests":{"nvidia.com/gpu":"4"}}}],
           "containers":[{"name":"a","resources":{"requests":{"nvidia.com/gpu":"1"}}}]})",
       {{"nvidia.com/gpu", 4 * M}}},
      // sidecar s (1) runs with everything after it: init i sees 1 + 2 = 3; containers 1 + sidecar 1 = 2.
      {"sidecars add to the containers and to later init containers",
       R"({"initContainers":[{"name":"s","restartPolicy":"Always","resources":{"requests":{"nvidia.com/gpu":"1"}}},
                             {"name":"i","resources":{"requests":{"nvidia.com/gpu":"2"}}}],
           "containers":[{"name":"a","resources":{"requests":{"nvidia.com/gpu":"1"}}}]})",
       {{"nvidia.com/gpu", 3 * M}}},
      {"a sidecar started after an init container does not run beside it",
       R"({"initContainers":[{"name":"i","resources":{"requests":{"nvidia.com/gpu":"4"}}},
                             {"name":"s","restartPolicy":"Always","resources":{"requests":{"nvidia.com/gpu":"1"}}}],
           "containers":[{"name":"a","resources":{"requests":{"nvidia.com/gpu":"1"}}}]})",
       {{"nvidia.com/gpu", 4 * M}}},
      {"overhead on top", R"({"containers":[{"name":"a","resources":{"requests":{"amd.com/gpu":"1"}}}],
                              "overhead":{"amd.com/gpu":"1"}})",
       {{"amd.com/gpu", 2 * M}}},
      {"a request wins over its limit",
       R"({"containers":[{"name":"a","resources":{"requests":{"nvidia.com/gpu":"1"},"limits":{"nvidia.com/gpu":"2"}}}]})",
       {{"nvidia.com/gpu", M}}},
      {"numbers count like their text",
       R"({"containers":[{"name":"a","resources":{"requests":{"nvidia.com/gpu":2}}}],"overhead":{"amd.com/gpu":1e0}})",
       {{"nvidia.com/gpu", 2 * M}, {"amd.com/gpu", M}}},
      {"resources set at 0 are left out",
       R"({"containers":[{"name":"a","resources":{"requests":{"nvidia.com/gpu":"0"}}}]})", {}},
      {"no GPU", R"({"containers":[{"name":"a","resources":{"requests":{"cpu":"1"}}}]})", {}},
      {"nothing at all", R"({})", {}},
  };
}

TEST(PodRequests, SchedulerArithmetic) {
  for (const auto& row : scheduler_rows()) EXPECT_EQ(requests_of(row.spec), row.expected) << row.name;
}

TEST(DropUncountedResources, RequestsStayTheSame) {
  for (const auto& row : scheduler_rows()) {
    auto pod = kube::project_pod(R"({"metadata":{"name":"p"},"spec":)" + row.spec + "}");
    drop_uncounted_resources(pod, gpu_resource);
    EXPECT_EQ(pod_requests(pod, gpu_resource).requests, row.expected) << row.name;
  }
}

TEST(DropUncountedResources, KeepsCountedResourcesAndLimitsWithoutARequest) {
  auto pod = kube::project_pod(R"({"metadata":{"name":"p"},"spec":{
      "initContainers":[{"name":"i","resources":{"requests":{"memory":"1Gi"},"limits":{"amd.com/gpu":"1","memory":"1Gi"}}}],
      "containers":[{"name":"a","resources":{"requests":{"cpu":"100m","memory":"128Mi","nvidia.com/gpu":"1"},
                                             "limits":{"nvidia.com/gpu":"1","memory":"128Mi"}}}],
      "overhead":{"cpu":"250m","nvidia.com/gpu":"0"}}})");
  drop_uncounted_resources(pod, gpu_resource);
  using Map = kube::PodProjection::Quantities;
  ASSERT_EQ(pod.containers.size(), 1u);
  EXPECT_EQ(pod.containers[0].requests, (Map{{"nvidia.com/gpu", "1"}}));
  EXPECT_EQ(pod.containers[0].limits, Map{}) << "the request names it";
  ASSERT_EQ(pod.rare().init_containers.size(), 1u);
  EXPECT_EQ(pod.rare().init_containers[0].requests, Map{});
  EXPECT_EQ(pod.rare().init_containers[0].limits, (Map{{"amd.com/gpu", "1"}})) << "no request names it";
  EXPECT_EQ(pod.rare().overhead, (Map{{"nvidia.com/gpu", "0"}}));
}

// The controller's pod store filters on requests_gpu after dropping.
TEST(DropUncountedResources, APodThatRequestsAGpuStillDoes) {
  for (const char* resources : {R"({"requests":{"cpu":"1","nvidia.com/gpu":"1"},"limits":{"nvidia.com/gpu":"1"}})",
                                R"({"limits":{"nvidia.com/mig-1g.10gb":"0","memory":"1Gi"}})"}) {
    auto pod = kube::project_pod(R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"a","resources":)" +
                                 std::string(resources) + "}]}}");
    ASSERT_TRUE(requests_gpu(pod)) << resources;
    drop_uncounted_resources(pod, is_gpu_resource);
    EXPECT_TRUE(requests_gpu(pod)) << resources;
  }
}

TEST(PodRequests, MalformedQuantitiesAreReportedNotCounted) {
  std::vector<std::string> problems;
  const Amounts r = requests_of(
      R"({"containers":[{"name":"a","resources":{"requests":{"nvidia.com/gpu":"lots","amd.com/gpu":"1"}}}]})", &problems);
  EXPECT_EQ(r, (Amounts{{"amd.com/gpu", M}}));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "spec.containers[0].resources.requests[nvidia.com/gpu]: \"lots\" is not a quantity the quota can count");
}

TEST(PodRequests, ProblemsNameWhereTheQuantityIs) {
  std::vector<std::string> problems;
  const Amounts r = requests_of(
      R"({"initContainers":[{"name":"i","resources":{"limits":{"nvidia.com/gpu":"-1"}}}],
          "containers":[{"name":"a"},{"name":"b","resources":{"limits":{"amd.com/gpu":"1x"}}}],
          "overhead":{"nvidia.com/gpu":"some","cpu":"bad but not counted"}})",
      &problems);
  EXPECT_EQ(r, Amounts{});
  EXPECT_EQ(problems, (std::vector<std::string>{
                          R"(spec.containers[1].resources.limits[amd.com/gpu]: "1x" is not a quantity the quota can count)",
                          R"(spec.initContainers[0].resources.limits[nvidia.com/gpu]: "-1" is not a quantity the quota can count)",
                          R"(spec.overhead[nvidia.com/gpu]: "some" is not a quantity the quota can count)",
                      }));
}

}  // namespace
}  // namespace gpupool::quota
