// The container installer against the real API server: the driver-installer
// pod it creates on a kwok node, and what it makes of the pod's outcome. The
// test plays the kubelet's last word (the pod's phase), as kwok does not run
// containers.
#include <gtest/gtest.h>

#include <future>
#include <thread>

#include "gpupool/kube/client.h"
#include "gpupool/kube/errors.h"
#include "gpupool/node/driver_installer.h"
#include "gpupool/testenv/process.h"
#include "support/cluster_fixture.h"
#include "support/kube_test_helpers.h"

namespace gpupool::test {
namespace {

using namespace std::chrono_literals;

class ContainerInstallerTest : public ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    client_ = std::make_unique<kube::Client>(rest_config(cluster(), cluster().admin_token()));
    // The installer's requests carry the agent's user agent: they are the
    // agent's in the RBAC check over the audit logs (rbac.usage_check).
    auto agent_config = rest_config(cluster(), cluster().admin_token());
    agent_config.user_agent = "gpupool-agent/0.1 (driver_installer_test)";
    agent_client_ = std::make_unique<kube::Client>(agent_config);
    testenv::NodeSpec spec;
    spec.first_index = 40 + index_++;
    spec.taints = {"nvidia.com/gpu=present:NoSchedule"};
    node_ = create_kwok_nodes(cluster(), 1, spec).at(0);
    // The node is cordoned during an install: the pod must run anyway.
    client_->patch({kube::core::nodes(), "", node_, ""}, kube::PatchType::MergePatch, R"({"spec":{"unschedulable":true}})");
  }
  void TearDown() override {
    delete_nodes(cluster(), {node_});
    ClusterTest::TearDown();
  }

  std::unique_ptr<node::DriverInstaller> installer() {
    node::ContainerInstallerOptions o;
    o.node_name = node_;
    o.namespace_ = ns();
    o.poll = 200ms;
    o.start_grace = 2s;
    return node::make_container_installer(*agent_client_, o);
  }
  api::DriverSpec driver(const std::string& version) {
    api::DriverSpec d;
    d.version = version;
    d.installer.kind = api::InstallerKind::container;
    d.installer.image = "nvcr.io/nvidia/driver:" + version + "-ubuntu22.04";
    d.installer.parameters = {{"DRIVER_BRANCH", "570"}};
    return d;
  }
  kube::ResourceRef pod_ref() const {
    return {kube::core::pods(), ns(), "gpupool-driver-installer-" + node_, ""};
  }
  std::optional<rapidjson::Document> pod() {
    try {
      return client_->get(pod_ref());
    } catch (const kube::ApiError& e) {
      if (e.is_not_found()) return std::nullopt;
      throw;
    }
  }
  // Waits for the installer pod of `version` and returns its uid.
  std::string wait_pod(const std::string& version) {
    std::string uid;
    wait_for(60s, [&] {
      auto p = pod();
      if (!p || !(*p)["metadata"].HasMember("annotations")) return false;
      if (kube::string_at(*p, {"metadata", "annotations", "gpupool.io/driver-version"}) != version) return false;
      if ((*p)["metadata"].HasMember("deletionTimestamp")) return false;
      uid = kube::string_at(*p, {"metadata", "uid"});
      return true;
    }, "the installer pod for " + version);
    return uid;
  }
  // Plays the kubelet: the installer container ended.
  void finish_pod(const std::string& phase, const std::string& terminated = R"({"exitCode":0})") {
    // Wait for kwok to have started it, so kwok does not overwrite our status.
    wait_for(60s, [&] { auto p = pod(); return p && kube::string_at(*p, {"status", "phase"}) == "Running"; }, "pod running");
    client_->patch(pod_ref().with_subresource("status"), kube::PatchType::MergePatch,
                   R"({"status":{"phase":")" + phase +
                       R"(","containerStatuses":[{"name":"installer","image":"x","imageID":"","ready":false,"restartCount":0,"state":{"terminated":)" +
                       terminated + "}}]}}");
  }

  std::unique_ptr<kube::Client> client_;
  std::unique_ptr<kube::Client> agent_client_;
  std::string node_;
  static inline int index_ = 0;
};

TEST_F(ContainerInstallerTest, CreatesAPinnedPodWaitsForItAndCleansUp) {
  auto inst = installer();
  auto done = std::async(std::launch::async, [&] { inst->install(driver("570.133.20"), {}); });
  wait_pod("570.133.20");
  auto p = *pod();
  EXPECT_EQ(kube::string_at(p, {"spec", "nodeName"}), node_);
  EXPECT_EQ(kube::string_at(p["spec"]["containers"][0], {"image"}), "nvcr.io/nvidia/driver:570.133.20-ubuntu22.04");
  EXPECT_EQ(kube::string_at(p["spec"]["tolerations"][0], {"operator"}), "Exists");
  EXPECT_EQ(kube::string_at(p["metadata"]["ownerReferences"][0], {"kind"}), "Node");
  bool branch = false;
  for (const auto& e : p["spec"]["containers"][0]["env"].GetArray()) {
    branch = branch || kube::string_at(e, {"name"}) == "DRIVER_BRANCH";
  }
  EXPECT_TRUE(branch);
  EXPECT_EQ(done.wait_for(0s), std::future_status::timeout);  // still waiting for the pod

  finish_pod("Succeeded");
  ASSERT_EQ(done.wait_for(60s), std::future_status::ready);
  EXPECT_NO_THROW(done.get());
  wait_for(60s, [&] { auto q = pod(); return !q || (*q)["metadata"].HasMember("deletionTimestamp"); },
           "the succeeded pod deleted");
}

TEST_F(ContainerInstallerTest, AFailedPodFailsTheInstallWithItsMessageAndIsKeptThenReplacedOnRetry) {
  auto inst = installer();
  auto first = std::async(std::launch::async, [&] { inst->install(driver("570.133.20"), {}); });
  const std::string uid = wait_pod("570.133.20");
  finish_pod("Failed", R"({"exitCode":1,"reason":"Error","message":"Could not resolve Linux kernel version"})");
  ASSERT_EQ(first.wait_for(60s), std::future_status::ready);
  try {
    first.get();
    FAIL() << "the install did not fail";
  } catch (const node::InstallError& e) {
    EXPECT_EQ(e.reason(), "InstallFailed");
    const std::string what = e.what();
    EXPECT_NE(what.find("exit code 1, Error: Could not resolve Linux kernel version"), std::string::npos) << what;
    EXPECT_NE(what.find("kubectl logs -n " + ns()), std::string::npos) << what;
  }
  auto kept = pod();
  ASSERT_TRUE(kept.has_value()) << "the failed pod is kept for its logs";
  EXPECT_EQ(kube::string_at(*kept, {"metadata", "uid"}), uid);

  // A new attempt (the spec changed, or the failure was cleared) replaces it.
  auto second = std::async(std::launch::async, [&] { inst->install(driver("570.133.20"), {}); });
  std::string uid2;
  wait_for(60s, [&] {
    auto p = pod();
    if (!p || (*p)["metadata"].HasMember("deletionTimestamp")) return false;
    uid2 = kube::string_at(*p, {"metadata", "uid"});
    return uid2 != uid;
  }, "a new installer pod");
  finish_pod("Succeeded");
  ASSERT_EQ(second.wait_for(60s), std::future_status::ready);
  EXPECT_NO_THROW(second.get());
}

TEST_F(ContainerInstallerTest, ARestartedAgentWaitsForTheRunningPodAndReplacesOneOfAnotherVersion) {
  // An agent stopped mid-install leaves its pod running...
  std::stop_source stop;
  auto inst = installer();
  auto first = std::async(std::launch::async, [&] { inst->install(driver("570.133.20"), stop.get_token()); });
  const std::string uid = wait_pod("570.133.20");
  stop.request_stop();
  ASSERT_EQ(first.wait_for(30s), std::future_status::ready);
  try {
    first.get();
    FAIL() << "a stopped install returned as if done";
  } catch (const node::InstallError& e) {
    EXPECT_EQ(e.reason(), "Cancelled");
  }
  ASSERT_TRUE(pod().has_value());

  // ... which the next agent adopts instead of starting over.
  auto again = installer();
  auto second = std::async(std::launch::async, [&] { again->install(driver("570.133.20"), {}); });
  EXPECT_EQ(second.wait_for(1s), std::future_status::timeout);
  EXPECT_EQ(kube::string_at(*pod(), {"metadata", "uid"}), uid);
  finish_pod("Succeeded");
  ASSERT_EQ(second.wait_for(60s), std::future_status::ready);
  EXPECT_NO_THROW(second.get());

  // A pod of another version (the spec moved on) is replaced.
  wait_for(60s, [&] { return !pod().has_value(); }, "the old pod gone");
  client_->create({kube::core::pods(), ns(), "", ""},
                  R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"gpupool-driver-installer-)" + node_ +
                      R"(","annotations":{"gpupool.io/driver-version":"550.54.15"}},"spec":{"nodeName":")" + node_ +
                      R"(","tolerations":[{"operator":"Exists"}],"containers":[{"name":"installer","image":"old"}]}})");
  auto third = std::async(std::launch::async, [&] { again->install(driver("580.65.06"), {}); });
  wait_pod("580.65.06");
  finish_pod("Succeeded");
  ASSERT_EQ(third.wait_for(60s), std::future_status::ready);
  EXPECT_NO_THROW(third.get());
}

TEST_F(ContainerInstallerTest, AnImageThatCannotBePulledFailsAfterTheGracePeriod) {
  auto inst = installer();
  auto done = std::async(std::launch::async, [&] { inst->install(driver("570.133.20"), {}); });
  wait_pod("570.133.20");
  wait_for(60s, [&] { auto p = pod(); return p && kube::string_at(*p, {"status", "phase"}) == "Running"; }, "pod running");
  client_->patch(pod_ref().with_subresource("status"), kube::PatchType::MergePatch,
                 R"({"status":{"phase":"Pending","containerStatuses":[{"name":"installer","image":"x","imageID":"","ready":false,"restartCount":0,"state":{"waiting":{"reason":"ImagePullBackOff","message":"Back-off pulling image \"nvcr.io/nvidia/driver:570.133.20-ubuntu22.04\""}}}]}})");
  ASSERT_EQ(done.wait_for(60s), std::future_status::ready);
  try {
    done.get();
    FAIL() << "the install did not fail";
  } catch (const node::InstallError& e) {
    EXPECT_EQ(e.reason(), "InstallFailed");
    EXPECT_NE(std::string(e.what()).find("cannot start: ImagePullBackOff"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gpupool::test
