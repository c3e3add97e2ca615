// The driver-installer pod: its manifest and reading it back.
#include <gtest/gtest.h>

#include <string>

#include "gpupool/kube/client.h"
#include "gpupool/node/installer_pod.h"

namespace gpupool::node {
namespace {

InstallerPodInput input() {
  InstallerPodInput in;
  in.node_name = "gpu-node-7";
  in.node_uid = "node-uid-7";
  in.namespace_ = "gpupool-system";
  in.driver.version = "570.133.20";
  in.driver.installer.kind = api::InstallerKind::container;
  in.driver.installer.image = "nvcr.io/nvidia/driver:570.133.20-ubuntu22.04";
  in.parameters.env = {{"DRIVER_BRANCH", "570"}, {"QUOTE", "a \"quoted\" value"}};
  return in;
}

TEST(InstallerPod, ManifestPinsThePodToTheNodeWithWhatTheDriverContainerNeeds) {
  const auto pod = kube::parse_json(installer_pod_manifest(input()));
  EXPECT_EQ(kube::string_at(pod, {"metadata", "name"}), "gpupool-driver-installer-gpu-node-7");
  EXPECT_EQ(kube::string_at(pod, {"metadata", "namespace"}), "gpupool-system");
  EXPECT_EQ(pod["metadata"]["annotations"]["gpupool.io/driver-version"].GetString(), std::string("570.133.20"));
  EXPECT_EQ(pod["metadata"]["labels"]["gpupool.io/node"].GetString(), std::string("gpu-node-7"));
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["uid"].GetString(), std::string("node-uid-7"));
  EXPECT_EQ(kube::string_at(pod, {"spec", "nodeName"}), "gpu-node-7");
  EXPECT_EQ(kube::string_at(pod, {"spec", "restartPolicy"}), "Never");
  EXPECT_FALSE(pod["spec"]["automountServiceAccountToken"].GetBool());
  EXPECT_TRUE(pod["spec"]["hostPID"].GetBool());
  ASSERT_EQ(pod["spec"]["tolerations"].Size(), 1u);
  EXPECT_EQ(kube::string_at(pod["spec"]["tolerations"][0], {"operator"}), "Exists");
  const auto& c = pod["spec"]["containers"][0];
  EXPECT_EQ(kube::string_at(c, {"image"}), "nvcr.io/nvidia/driver:570.133.20-ubuntu22.04");
  EXPECT_TRUE(c["securityContext"]["privileged"].GetBool());
  ASSERT_EQ(c["env"].Size(), 3u);
  EXPECT_EQ(kube::string_at(c["env"][0], {"name"}), "DRIVER_VERSION");
  EXPECT_EQ(kube::string_at(c["env"][0], {"value"}), "570.133.20");
  EXPECT_EQ(kube::string_at(c["env"][2], {"value"}), "a \"quoted\" value");  // escaped, not broken JSON
  EXPECT_EQ(kube::string_at(pod["spec"]["volumes"][0], {"hostPath", "path"}), "/");
}

TEST(InstallerPod, WithoutANodeUidThereIsNoOwnerAndLongNamesStayValid) {
  auto in = input();
  in.node_uid.clear();
  in.node_name = std::string(250, 'n');
  const auto pod = kube::parse_json(installer_pod_manifest(in));
  EXPECT_FALSE(pod["metadata"].HasMember("ownerReferences"));
  EXPECT_LE(kube::string_at(pod, {"metadata", "name"}).size(), 253u);
  EXPECT_LE(std::string(pod["metadata"]["labels"]["gpupool.io/node"].GetString()).size(), 63u);
  EXPECT_NE(installer_pod_name(std::string(250, 'n')), installer_pod_name(std::string(250, 'n') + "x"));
}

TEST(InstallerPod, ReadsPhaseVersionImageAndWhyItFailedOrCannotStart) {
  struct Case {
    std::string status;
    InstallerPodPhase phase;
    std::string detail;
  };
  const std::vector<Case> cases = {
      {R"({"phase":"Pending"})", InstallerPodPhase::running, ""},
      {R"({"phase":"Pending","containerStatuses":[{"state":{"waiting":{"reason":"ContainerCreating"}}}]})",
       InstallerPodPhase::running, ""},
      {R"({"phase":"Pending","containerStatuses":[{"state":{"waiting":{"reason":"ImagePullBackOff","message":"Back-off pulling image"}}}]})",
       InstallerPodPhase::running, "ImagePullBackOff: Back-off pulling image"},
      {R"({"phase":"Running"})", InstallerPodPhase::running, ""},
      {R"({"phase":"Succeeded"})", InstallerPodPhase::succeeded, ""},
      {R"({"phase":"Failed","containerStatuses":[{"state":{"terminated":{"exitCode":1,"reason":"Error","message":"nvidia.ko: Unknown symbol"}}}]})",
       InstallerPodPhase::failed, "exit code 1, Error: nvidia.ko: Unknown symbol"},
      {R"({"phase":"Failed","reason":"Evicted","message":"The node was low on resource: memory."})", InstallerPodPhase::failed,
       "Evicted: The node was low on resource: memory."},
      {R"({"phase":"Failed"})", InstallerPodPhase::failed, "the pod failed"},
  };
  for (const auto& c : cases) {
    auto pod = kube::parse_json(installer_pod_manifest(input()));
    auto status = kube::parse_json(c.status);
    pod.AddMember("status", rapidjson::Value(status, pod.GetAllocator()), pod.GetAllocator());
    const auto s = read_installer_pod(pod);
    EXPECT_EQ(s.phase, c.phase) << c.status;
    EXPECT_EQ(s.detail, c.detail) << c.status;
    EXPECT_EQ(s.version, "570.133.20");
    EXPECT_EQ(s.image, "nvcr.io/nvidia/driver:570.133.20-ubuntu22.04");
  }
  EXPECT_EQ(read_installer_pod(kube::parse_json("{}")).phase, InstallerPodPhase::running);  // nothing to read: no crash
}

}  // namespace
}  // namespace gpupool::node
