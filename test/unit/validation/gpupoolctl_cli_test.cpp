// gpupoolctl as users run it: exit statuses, one line per problem, MIG plans.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gpupool/testenv/process.h"

namespace {

using gpupool::testenv::CommandResult;

CommandResult ctl(const std::vector<std::string>& args, const std::string& stdin_data = "") {
  return gpupool::testenv::run_command(GPUPOOL_GPUPOOLCTL_BIN, args, stdin_data);
}

std::string all(const CommandResult& r) { return "stdout:\n" + r.out + "stderr:\n" + r.err; }

TEST(GpupoolctlValidate, SamplesAreValid) {
  auto r = ctl({"validate", "-f", std::string(GPUPOOL_SOURCE_DIR) + "/config/samples"});
  EXPECT_EQ(r.status, 0) << all(r);
  EXPECT_NE(r.err.find("0 problem(s)"), std::string::npos) << all(r);
}

TEST(GpupoolctlValidate, OneLinePerProblemWithFileObjectPathReason) {
  const std::string manifest = R"(apiVersion: gpupool.io/v1alpha1
kind: GPUPool
metadata: {name: a100-mig}
spec:
  nodeSelector: {matchLabels: {gpupool.io/gpu-model: a100-sxm4-80gb}}
  partitioning:
    nvidia:
      strategy: mixed
      devices: [{profiles: {4g.40gb: 2}}]
---
apiVersion: gpupool.io/v1alpha1
kind: TenantQuota
metadata: {name: ml, namespace: team-a}
spec:
  poolRef: {name: a100-mig}
  resources: {nvidia.com/gpus: 2}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: unrelated}
)";
  auto r = ctl({"validate", "-f", "-"}, manifest);
  EXPECT_EQ(r.status, 1) << all(r);
  EXPECT_NE(r.out.find("<stdin>:1: GPUPool a100-mig: spec.partitioning.nvidia.devices[0].profiles: Invalid value: "
                       "2 x 4g.40gb need 8 compute slices; A100-SXM4-80GB has 7"),
            std::string::npos)
      << all(r);
  EXPECT_NE(r.out.find("<stdin>:11: TenantQuota team-a/ml: spec.resources[nvidia.com/gpus]: Unsupported value"),
            std::string::npos)
      << all(r);
  EXPECT_NE(r.err.find("2 gpupool.io object(s) checked, 1 other object(s) skipped, 2 problem(s)"),
            std::string::npos)
      << all(r);
}

TEST(GpupoolctlValidate, UnreadableInputIsAProblem) {
  auto r = ctl({"validate", "-f", "/nonexistent/pools.yaml"});
  EXPECT_EQ(r.status, 1) << all(r);
  EXPECT_NE(r.out.find("/nonexistent/pools.yaml"), std::string::npos) << all(r);
}

TEST(GpupoolctlValidate, MigPartedLayoutsCanBeNamed) {
  auto dir = std::filesystem::temp_directory_path() / ("gpupoolctl-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "parted.yaml") << "version: v1\nmig-configs:\n  team-mix:\n    - devices: all\n"
                                          "      mig-enabled: true\n      mig-devices: {\"3g.40gb\": 2}\n";
  }
  const std::string pool = R"(apiVersion: gpupool.io/v1alpha1
kind: GPUPool
metadata: {name: named}
spec:
  nodeSelector: {matchLabels: {gpupool.io/gpu-model: a100-sxm4-80gb}}
  partitioning: {nvidia: {layout: team-mix}}
)";
  auto without = ctl({"validate", "-f", "-"}, pool);
  EXPECT_EQ(without.status, 1) << all(without);
  EXPECT_NE(without.out.find("spec.partitioning.nvidia.layout"), std::string::npos) << all(without);
  auto with = ctl({"validate", "--mig-parted-config", (dir / "parted.yaml").string(), "-f", "-"}, pool);
  EXPECT_EQ(with.status, 0) << all(with);
  std::filesystem::remove_all(dir);
}

TEST(GpupoolctlMig, PlanPlacesTheIssueExample) {
  auto r = ctl({"mig", "plan", "--model", "a100-sxm4-80gb", "3g.40gb=1,2g.20gb=1,1g.10gb=2"});
  ASSERT_EQ(r.status, 0) << all(r);
  EXPECT_NE(r.out.find("A100-SXM4-80GB: 3g.40gb=1,2g.20gb=1,1g.10gb=2"), std::string::npos) << all(r);
  EXPECT_NE(r.out.find("uses 7 of 7 compute slices and 8 of 8 memory slices"), std::string::npos) << all(r);
}

TEST(GpupoolctlMig, PlanExplainsWhyNot) {
  auto r = ctl({"mig", "plan", "--model", "A100-SXM4-80GB", "4g.40gb=2"});
  EXPECT_EQ(r.status, 1) << all(r);
  EXPECT_NE(r.err.find("2 x 4g.40gb need 8 compute slices; A100-SXM4-80GB has 7"), std::string::npos) << all(r);
}

TEST(GpupoolctlMig, PlanChangeKeepsWhatStays) {
  auto r = ctl({"mig", "plan", "--model", "a100-sxm4-40gb", "--current",
                "1g.5gb@0,1g.5gb@1,1g.5gb@2,1g.5gb@3,1g.5gb@4,1g.5gb@5,1g.5gb@6", "3g.20gb=1,1g.5gb=4"});
  ASSERT_EQ(r.status, 0) << all(r);
  EXPECT_NE(r.out.find("destroy: 1g.5gb@"), std::string::npos) << all(r);
  EXPECT_NE(r.out.find("create:  3g.20gb@"), std::string::npos) << all(r);
}

TEST(GpupoolctlMig, LayoutsListsMaximalLayouts) {
  auto r = ctl({"mig", "layouts", "--model", "a30-24gb"});
  ASSERT_EQ(r.status, 0) << all(r);
  EXPECT_NE(r.out.find("4g.24gb=1\n"), std::string::npos) << all(r);
  EXPECT_NE(r.out.find("maximal MIG layouts of A30"), std::string::npos) << all(r);
}

TEST(GpupoolctlMig, UnknownModelIsAUsageError) {
  auto r = ctl({"mig", "layouts", "--model", "a100-typo"});
  EXPECT_EQ(r.status, 2) << all(r);
  EXPECT_NE(r.err.find("unknown GPU model \"a100-typo\""), std::string::npos) << all(r);
  auto t4 = ctl({"mig", "layouts", "--model", "t4-16gb"});
  EXPECT_EQ(t4.status, 1) << all(t4);
  EXPECT_NE(t4.err.find("does not support MIG"), std::string::npos) << all(t4);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"mig", "plan", "--model", "t4-16gb", "1g.10gb=1"},
        std::vector<std::string>{"mig", "plan", "--model", "t4-16gb", "--current", "1g.10gb@0", "1g.10gb=1"}}) {
    auto plan = ctl(args);
    EXPECT_EQ(plan.status, 1) << all(plan);
    EXPECT_NE(plan.err.find("Tesla T4 does not support MIG"), std::string::npos) << all(plan);
  }
  auto bad = ctl({"mig", "plan", "--model", "a100-sxm4-40gb", "--current", "1g.5gb", "1g.5gb=1"});
  EXPECT_EQ(bad.status, 1) << all(bad);
  EXPECT_NE(bad.err.find("PROFILE@START"), std::string::npos) << all(bad);
}

}  // namespace
