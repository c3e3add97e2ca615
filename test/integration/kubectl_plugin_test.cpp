// The kubectl plugin against a live controller: the real kubectl finds
// kubectl-gpupool (the link the build makes beside gpupoolctl) on $PATH and
// hands it kubectl's flags: `kubectl gpupool status|explain|approve`, with
// --kubeconfig, with $KUBECONFIG instead, and a --context that does not
// exist. The fleet: two kwok nodes with simulated agents in a pool whose
// driver the first fails to install, past a failure budget of 0, so the
// second waits; then the pool paused; a TenantQuota under a GPUPolicy with
// manual approval.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "gpupool/testenv/process.h"
#include "support/quota_fixture.h"

namespace gpupool::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class KubectlPluginTest : public QuotaTest {
 protected:
  // `kubectl ARGS` with kubectl-gpupool's directory first on $PATH, and `env` on top.
  testenv::CommandResult kubectl(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
    const std::string plugin_dir = fs::path(GPUPOOL_GPUPOOLCTL_BIN).parent_path().string();
    const char* path = std::getenv("PATH");
    std::vector<std::string> all_env = {"PATH=" + plugin_dir + ":" + fs::path(cluster().kubectl_path()).parent_path().string() +
                                        (path ? ":" + std::string(path) : "")};
    all_env.insert(all_env.end(), env.begin(), env.end());
    return testenv::run_command(cluster().kubectl_path(), args, "", 60s, all_env);
  }
  static std::string all(const testenv::CommandResult& r) { return "stdout:\n" + r.out + "stderr:\n" + r.err; }
  static void expect_has(const testenv::CommandResult& r, const std::vector<std::string>& words) {
    for (const auto& w : words) EXPECT_NE(r.out.find(w), std::string::npos) << "missing \"" << w << "\"\n" << all(r);
  }
};

TEST_F(KubectlPluginTest, StatusExplainApproveThroughKubectl) {
  ASSERT_TRUE(fs::exists(fs::path(GPUPOOL_GPUPOOLCTL_BIN).parent_path() / "kubectl-gpupool"));
  const std::string world = "driverVersion: \"550.54.15\"\ngpus: [{model: a100-sxm4-80gb, count: 2}]\n";
  const auto nodes = fleet(0, 2, {{"plugin-test", "held"}}, world);
  this->world(nodes[0], world + "install: {fail: \"nvidia-installer: kernel module build failed\"}\n");
  start_controller();
  apply("apiVersion: gpupool.io/v1alpha1\nkind: GPUPolicy\nmetadata:\n  name: quota-test\nspec:\n  quota:\n"
        "    approval: Manual\n");
  apply_pool(pool_yaml("held", "plugin-test: held",
                       "  policyRef: {name: quota-test}\n"
                       "  driver:\n    version: \"570.133.20\"\n"
                       "    installer: {kind: container, image: nvcr.io/nvidia/driver:570.133.20}\n"
                       "    upgradeStrategy: {maxUnavailable: 1, failureBudget: 0}\n"));
  ASSERT_TRUE(wait_pool("held", 60s, [](const rapidjson::Value& p) {
    return condition(p, "Ready", "reason") == "FailureBudgetExceeded";
  }, "the first node failed, past the failure budget"));
  apply("apiVersion: gpupool.io/v1alpha1\nkind: TenantQuota\nmetadata:\n  name: train\n  namespace: " + ns() +
        "\nspec:\n  poolRef: {name: held}\n  resources: {nvidia.com/gpu: 2}\n");
  ASSERT_TRUE(testenv::wait_until([&] {
    return condition(get_quota(ns(), "train"), "Granted", "reason") == "WaitingForApproval";
  }, 30s)) << kube::to_json(get_quota(ns(), "train"));
  const std::string kubeconfig = cluster().kubeconfig_path();

  // status: the three tables, the pool's and the nodes' reasons.
  auto status = kubectl({"gpupool", "status", "--kubeconfig", kubeconfig, "-n", ns()});
  ASSERT_EQ(status.status, 0) << all(status);
  expect_has(status, {"GPUPOOLS\nNAME ", "GPUNODES\nNAME ", "TENANTQUOTAS (namespace " + ns() + ")\nNAME ",
                      "held ", "FailureBudgetExceeded: ", "550.54.15->570.133.20", "Failed", "InstallFailed: Driver failed",
                      "Waiting", "waiting for permission (spec.disruptionAllowed false)", "train ", "0/2",
                      "WaitingForApproval: waiting for an administrator"});
  for (const auto& n : nodes) expect_has(status, {n + " "});
  // -A: every namespace, with a NAMESPACE column.
  auto everywhere = kubectl({"gpupool", "status", "--kubeconfig=" + kubeconfig, "-A"});
  ASSERT_EQ(everywhere.status, 0) << all(everywhere);
  expect_has(everywhere, {"TENANTQUOTAS (all namespaces)\nNAMESPACE ", ns() + " "});

  // explain pool: stopped by the failure, which node and why, how to retry.
  auto failed = kubectl({"gpupool", "explain", "pool", "held", "--kubeconfig", kubeconfig});
  ASSERT_EQ(failed.status, 0) << all(failed);
  expect_has(failed, {"GPUPool held has stopped: more nodes failed than its failure budget allows",
                      "failed: " + nodes[0] + " (", "kernel module build failed", "gpupool.io/retry=true",
                      "Recent events (newest first):", "NodeFailed"});
  auto failed_node = kubectl({"gpupool", "explain", "gpunode", nodes[0], "--kubeconfig", kubeconfig});
  ASSERT_EQ(failed_node.status, 0) << all(failed_node);
  expect_has(failed_node, {"GPUNode " + nodes[0] + " failed: ", "kernel module build failed",
                           "kubectl annotate gpunode " + nodes[0] + " gpupool.io/retry=true"});

  // explain node through $KUBECONFIG: waiting for permission, and the pool's reason.
  auto node = kubectl({"gpupool", "explain", "node/" + nodes[1]}, {"KUBECONFIG=" + kubeconfig});
  ASSERT_EQ(node.status, 0) << all(node);
  expect_has(node, {"GPUNode " + nodes[1] + " is waiting for permission", "spec.disruptionAllowed is false",
                    "GPUPool held: FailureBudgetExceeded"});

  // Paused: explain says so, and how to resume.
  std::string out;
  ASSERT_EQ(cluster().kubectl({"patch", "gpupool", "held", "--type=merge", "-p", R"({"spec":{"paused":true}})"}, &out), 0) << out;
  ASSERT_TRUE(wait_pool("held", 30s, [](const rapidjson::Value& p) { return condition(p, "Ready", "reason") == "Paused"; },
                        "the pool paused"));
  auto paused = kubectl({"gpupool", "explain", "gpupool/held"}, {"KUBECONFIG=" + kubeconfig});
  ASSERT_EQ(paused.status, 0) << all(paused);
  expect_has(paused, {"GPUPool held is not progressing: it is paused (spec.paused is true), so no new node starts.",
                      "kubectl patch gpupool held --type=merge -p '{\"spec\":{\"paused\":false}}'",
                      "failed: " + nodes[0]});

  // explain and approve the TenantQuota.
  auto waiting = kubectl({"gpupool", "explain", "tq", ns() + "/train", "--kubeconfig", kubeconfig});
  ASSERT_EQ(waiting.status, 0) << all(waiting);
  expect_has(waiting, {"TenantQuota " + ns() + "/train waits for an administrator's approval",
                       "`kubectl gpupool approve " + ns() + "/train`"});
  auto approve = kubectl({"gpupool", "approve", "train", "-n", ns(), "--kubeconfig", kubeconfig});
  ASSERT_EQ(approve.status, 0) << all(approve);
  expect_has(approve, {"approved TenantQuota " + ns() + "/train: 2 nvidia.com/gpu"});
  ASSERT_TRUE(wait_phase(ns(), "train", "Granted"));
  auto granted = kubectl({"gpupool", "explain", "tenantquota", "train", "-n", ns()}, {"KUBECONFIG=" + kubeconfig});
  ASSERT_EQ(granted.status, 0) << all(granted);
  EXPECT_EQ(granted.out, "TenantQuota " + ns() + "/train is granted: 2 nvidia.com/gpu from GPUPool held (none in use).\n")
      << all(granted);
  // And the table says so.
  auto after = kubectl({"gpupool", "status", "-n", ns()}, {"KUBECONFIG=" + kubeconfig});
  ASSERT_EQ(after.status, 0) << all(after);
  expect_has(after, {"2/2 "});

  // Not found, and a context the kubeconfig does not have.
  auto missing = kubectl({"gpupool", "explain", "pool", "nope", "--kubeconfig", kubeconfig});
  EXPECT_EQ(missing.status, 1) << all(missing);
  EXPECT_NE(missing.err.find("GPUPool nope not found"), std::string::npos) << all(missing);
  for (const auto& env : std::vector<std::vector<std::string>>{{}, {"KUBECONFIG=" + kubeconfig}}) {
    std::vector<std::string> args = {"gpupool", "status", "--context", "nowhere"};
    if (env.empty()) args.insert(args.end(), {"--kubeconfig", kubeconfig});
    auto bad = kubectl(args, env);
    EXPECT_NE(bad.status, 0) << all(bad);
    EXPECT_NE(bad.err.find("context \"nowhere\" (from --context) not found"), std::string::npos) << all(bad);
    EXPECT_EQ(bad.out, "") << all(bad);
  }
}

}  // namespace
}  // namespace gpupool::test
