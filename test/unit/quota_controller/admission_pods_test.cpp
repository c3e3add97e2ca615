// What the admission reconciler's pod store keeps of a pod: trimming clears
// what admission never reads and changes nothing it charges.
#include "gpupool/quota_controller/admission_pods.h"

#include <gtest/gtest.h>

#include "gpupool/quota/charging.h"
#include "gpupool/quota/gpu_resources.h"
#include "gpupool/quota/pod_requests.h"

namespace gpupool::quota_controller {
namespace {

using kube::PodProjection;

TEST(AdmissionPods, TrimmingClearsWhatAdmissionNeverReadsAndKeepsTheCharge) {
  struct Case {
    const char* name;
    std::string json;
    bool kept;
  };
  const std::string meta = R"("metadata":{"name":"p","namespace":"ml-a","uid":"0b3c1d2e-5f60-4a7b-8c9d-0e1f2a3b4c5d",
                              "resourceVersion":"42","creationTimestamp":"2026-11-27T09:22:23Z"},)";
  const std::vector<Case> cases = {
      {"one MIG container on a long-named node",
       "{" + meta + R"("spec":{"nodeName":"ip-10-0-12-34.eu-west-1.compute.internal","priority":7,
          "containers":[{"name":"trainer-with-a-long-name","resources":{
            "requests":{"cpu":"1","memory":"1Gi","nvidia.com/mig-1g.10gb":"1"},"limits":{"nvidia.com/mig-1g.10gb":"1"}}}]}})",
       true},
      {"gated, a sidecar and an init container with GPUs, overhead",
       "{" + meta + R"("spec":{"nodeName":"n","schedulingGates":[{"name":"gpupool.io/quota"}],
          "nodeSelector":{"gpupool.io/pool":"a100"},"overhead":{"cpu":"250m","nvidia.com/gpu":"0"},
          "initContainers":[{"name":"prepare-dataset-from-bucket","resources":{"limits":{"nvidia.com/gpu":"2"}}},
                            {"name":"log-shipper-sidecar","restartPolicy":"Always","resources":{"requests":{"nvidia.com/gpu":"1"}}}],
          "containers":[{"name":"main","resources":{"requests":{"nvidia.com/gpu":"1","cpu":"2"}}},
                        {"name":"no-gpu-helper","resources":{"requests":{"cpu":"1"}}}]}})",
       true},
      {"a limit only (the request defaults to it) and a shared GPU",
       "{" + meta + R"("spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu.shared":"3","memory":"1Gi"}}}]}})",
       true},
      {"no GPU: not kept", "{" + meta + R"("spec":{"nodeName":"n","containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}})",
       false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const PodProjection decoded = kube::project_pod(c.json);
    PodProjection trimmed = decoded;
    trim_for_admission(trimmed);

    EXPECT_EQ(admission_keeps(decoded), c.kept);
    EXPECT_EQ(admission_keeps(trimmed), c.kept);
    // What admission reads is unchanged.
    const auto before = quota::pod_requests(decoded, quota::is_gpu_resource);
    const auto after = quota::pod_requests(trimmed, quota::is_gpu_resource);
    EXPECT_EQ(after.requests, before.requests);
    EXPECT_EQ(after.problems, before.problems);
    EXPECT_EQ(quota::gated(trimmed), quota::gated(decoded));
    EXPECT_EQ(trimmed.ns, decoded.ns);
    EXPECT_EQ(trimmed.name, decoded.name);
    EXPECT_EQ(trimmed.resource_version, decoded.resource_version);  // the informer compares it
    EXPECT_EQ(trimmed.priority, decoded.priority);
    EXPECT_EQ(trimmed.created_ms, decoded.created_ms);
    EXPECT_EQ(trimmed.phase, decoded.phase);
    EXPECT_EQ(trimmed.rare().node_selector, decoded.rare().node_selector);
    EXPECT_EQ(trimmed.rare().scheduling_gates, decoded.rare().scheduling_gates);
    // The uid only while the pod is gated.
    EXPECT_EQ(trimmed.uid, decoded.rare().scheduling_gates.empty() ? "" : decoded.uid);
    // No trace of where it runs, its containers' names or other resources.
    EXPECT_EQ(trimmed.node_name, "");
    ASSERT_EQ(trimmed.containers.size(), decoded.containers.size());  // indices in problems stay true
    for (const auto& container : trimmed.containers) {
      EXPECT_EQ(container.name, "");
      for (const auto& [resource, quantity] : container.requests) EXPECT_TRUE(quota::is_gpu_resource(resource)) << resource;
      for (const auto& [resource, quantity] : container.limits) EXPECT_TRUE(quota::is_gpu_resource(resource)) << resource;
    }
    for (const auto& container : trimmed.rare().init_containers) EXPECT_EQ(container.name, "");
    // The copy trimmed, the decoded pod untouched (they shared the rare fields).
    EXPECT_EQ(decoded, kube::project_pod(c.json));
  }
}

TEST(AdmissionPods, TrimmingTwiceChangesNothingMore) {
  PodProjection p = kube::project_pod(R"({"metadata":{"name":"p","uid":"u"},"spec":{"nodeName":"n",
      "initContainers":[{"name":"s","restartPolicy":"Always","resources":{"requests":{"amd.com/gpu":"1","cpu":"1"}}}]}})");
  trim_for_admission(p);
  const PodProjection once = p;
  trim_for_admission(p);
  EXPECT_EQ(p, once);
  ASSERT_EQ(p.rare().init_containers.size(), 1u);
  EXPECT_TRUE(p.rare().init_containers[0].restart_always) << "a sidecar stays a sidecar";
}

}  // namespace
}  // namespace gpupool::quota_controller
