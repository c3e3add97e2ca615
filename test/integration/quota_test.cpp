// TenantQuotas granted by the controller on the real control plane: kwok
// nodes with simulated agents make a pool's capacity; quotas from several
// namespaces compete for it.
#include <gtest/gtest.h>

#include <ctime>

#include "support/quota_fixture.h"

namespace gpupool::test {
namespace {

TEST_F(QuotaTest, GrantsFollowPriorityWithinCapacityRejectOthersAndSayWhyInNumbers) {
  fleet(90, 2, {{"pool-test", "quota"}});  // 2 nodes x 2 A100 without MIG: 4 nvidia.com/gpu
  start_controller();
  make_namespace("qt-a", "gpu-access: \"yes\"");
  make_namespace("qt-b", "gpu-access: \"yes\"");
  make_namespace("qt-c", "");
  policy_and_pool("    namespaceSelector:\n      matchLabels: {gpu-access: \"yes\"}\n");

  quota("qt-a", "train", "nvidia.com/gpu: 3", 10);
  quota("qt-b", "infer", "nvidia.com/gpu: 3", 0);
  quota("qt-c", "sneaky", "nvidia.com/gpu: 1", 100);
  quota("qt-b", "units", "gpupool.io/gpu: \"1.5\"", 0);

  ASSERT_TRUE(wait_phase("qt-a", "train", "Granted"));
  EXPECT_EQ(str(get_quota("qt-a", "train"), {"status", "granted", "nvidia.com/gpu"}), "3");
  ASSERT_TRUE(wait_phase("qt-b", "infer", "PartiallyGranted"));
  auto infer = get_quota("qt-b", "infer");
  EXPECT_EQ(str(infer, {"status", "granted", "nvidia.com/gpu"}), "1");
  EXPECT_EQ(condition(infer, "Granted", "message"), "granted 1 of 3 nvidia.com/gpu: pool quota has 0 unreserved");
  EXPECT_EQ(condition(infer, "Granted", "reason"), "PartiallyGranted");
  ASSERT_TRUE(wait_phase("qt-c", "sneaky", "Rejected"));
  EXPECT_NE(condition(get_quota("qt-c", "sneaky"), "Granted", "message").find("namespace qt-c may not request quota from pool quota"),
            std::string::npos);
  // gpupool.io/gpu counts the same 4 GPUs, all guaranteed as devices already.
  ASSERT_TRUE(wait_phase("qt-b", "units", "Pending"));
  EXPECT_EQ(condition(get_quota("qt-b", "units"), "Granted", "message"),
            "granted 0 of 1.5 gpupool.io/gpu: pool quota has 0 unreserved");
  ASSERT_TRUE(wait_pool("quota", 30s, [](const rapidjson::Value& p) {
    return str(p, {"status", "granted", "nvidia.com/gpu"}) == "4" && str(p, {"status", "granted", "gpupool.io/gpu"}).empty();
  }, "the pool's granted totals"));
  EXPECT_EQ(str(get(kPools, "quota"), {"status", "capacity", "nvidia.com/gpu"}), "4") << "the pool reconciler keeps its fields";

  // The higher-priority quota goes away: its capacity returns to the others.
  std::string out;
  ASSERT_EQ(cluster().kubectl({"delete", "tenantquota", "train", "-n", "qt-a"}, &out), 0) << out;
  ASSERT_TRUE(wait_phase("qt-b", "infer", "Granted"));
  EXPECT_EQ(str(get_quota("qt-b", "infer"), {"status", "granted", "nvidia.com/gpu"}), "3");
  // Devices first; the GPU they leave goes to the normalised quota.
  ASSERT_TRUE(wait_phase("qt-b", "units", "PartiallyGranted"));
  EXPECT_EQ(str(get_quota("qt-b", "units"), {"status", "granted", "gpupool.io/gpu"}), "1");
}

// approval: Manual: nothing before `gpupoolctl approve`, then exactly what was
// approved; a request raised afterwards waits for another approval.
TEST_F(QuotaTest, ManualApprovalGrantsOnlyWhatWasApproved) {
  fleet(95, 2, {{"pool-test", "quota"}});
  start_controller();
  make_namespace("qt-m", "");
  policy_and_pool("    approval: Manual\n");
  quota("qt-m", "train", "nvidia.com/gpu: 2", 0);
  ASSERT_TRUE(wait_phase("qt-m", "train", "Pending"));
  ASSERT_TRUE(testenv::wait_until([&] { return condition(get_quota("qt-m", "train"), "Granted", "reason") == "WaitingForApproval"; }, 30s));
  EXPECT_EQ(condition(get_quota("qt-m", "train"), "Granted", "message"),
            "waiting for an administrator: `gpupoolctl approve qt-m/train`");

  std::string approve_out;
  auto approve = [&] {
    auto r = testenv::run_command(GPUPOOL_GPUPOOLCTL_BIN, {"approve", "qt-m/train", "--kubeconfig", cluster().kubeconfig_path()},
                                  "", 30s);
    approve_out = r.out + r.err;
    return r.status;
  };
  ASSERT_EQ(approve(), 0) << approve_out;
  EXPECT_NE(approve_out.find("approved TenantQuota qt-m/train: 2 nvidia.com/gpu"), std::string::npos) << approve_out;
  ASSERT_TRUE(wait_phase("qt-m", "train", "Granted"));
  EXPECT_EQ(str(get_quota("qt-m", "train"), {"status", "granted", "nvidia.com/gpu"}), "2");

  // The tenant raises its request: still 2 until approved again.
  quota("qt-m", "train", "nvidia.com/gpu: 4", 0);
  ASSERT_TRUE(wait_phase("qt-m", "train", "PartiallyGranted"));
  auto raised = get_quota("qt-m", "train");
  EXPECT_EQ(str(raised, {"status", "granted", "nvidia.com/gpu"}), "2");
  EXPECT_NE(condition(raised, "Granted", "message").find("2 approved"), std::string::npos) << condition(raised, "Granted", "message");
  ASSERT_EQ(approve(), 0) << approve_out;
  ASSERT_TRUE(wait_phase("qt-m", "train", "Granted"));
  EXPECT_EQ(str(get_quota("qt-m", "train"), {"status", "granted", "nvidia.com/gpu"}), "4");
}

// expiresAt ends the guarantee: the quota is Expired and what it held goes
// to the quota that waited for it.
TEST_F(QuotaTest, AnExpiredGrantReturnsItsCapacity) {
  fleet(100, 2, {{"pool-test", "quota"}});
  start_controller();
  make_namespace("qt-e", "");
  policy_and_pool("    approval: Automatic\n");
  const std::string expires = rfc3339(std::chrono::system_clock::now() + 8s);
  apply("apiVersion: gpupool.io/v1alpha1\nkind: TenantQuota\nmetadata:\n  name: short\n  namespace: qt-e\nspec:\n"
        "  poolRef: {name: quota}\n  resources: {nvidia.com/gpu: 4}\n  expiresAt: \"" + expires + "\"\n");
  ASSERT_TRUE(wait_phase("qt-e", "short", "Granted"));
  quota("qt-e", "later", "nvidia.com/gpu: 2", 0);
  ASSERT_TRUE(wait_phase("qt-e", "later", "Pending"));
  ASSERT_TRUE(wait_phase("qt-e", "short", "Expired"));
  EXPECT_FALSE(at(get_quota("qt-e", "short"), {"status", "granted", "nvidia.com/gpu"}));
  ASSERT_TRUE(wait_phase("qt-e", "later", "Granted"));
  EXPECT_EQ(str(get_quota("qt-e", "later"), {"status", "granted", "nvidia.com/gpu"}), "2");
}

// One quota's grant falls and another's rises in the same pass (the pool's
// statuses are written a few at once): at no moment do the quotas hold more
// together than the pool has, the falling grant being written first.
TEST_F(QuotaTest, GrantsThatMoveNeverHoldMoreTogetherThanThePool) {
  fleet(105, 2, {{"pool-test", "quota"}});
  start_controller();
  make_namespace("qt-g", "");
  policy_and_pool("    approval: Automatic\n");
  GrantedRecorder granted(*client_, "quota", "nvidia.com/gpu");
  quota("qt-g", "first", "nvidia.com/gpu: 3", 10);
  ASSERT_TRUE(wait_phase("qt-g", "first", "Granted"));
  quota("qt-g", "second", "nvidia.com/gpu: 3", 0);
  ASSERT_TRUE(wait_phase("qt-g", "second", "PartiallyGranted"));
  EXPECT_EQ(str(get_quota("qt-g", "second"), {"status", "granted", "nvidia.com/gpu"}), "1");

  quota("qt-g", "first", "nvidia.com/gpu: 1", 10);  // 3 -> 1, and the second's 1 -> 3 in one pass
  ASSERT_TRUE(wait_phase("qt-g", "second", "Granted"));
  EXPECT_EQ(str(get_quota("qt-g", "second"), {"status", "granted", "nvidia.com/gpu"}), "3");
  EXPECT_EQ(str(get_quota("qt-g", "first"), {"status", "granted", "nvidia.com/gpu"}), "1");
  ASSERT_TRUE(testenv::wait_until([&] { return granted.now() == 4; }, 30s)) << "the recorder saw " << granted.now();
  EXPECT_EQ(granted.most(), 4) << "the quotas held more than the pool's 4 GPUs at some moment";
}

}  // namespace
}  // namespace gpupool::test
