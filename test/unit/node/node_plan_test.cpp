#include "gpupool/node/node_plan.h"

#include <gtest/gtest.h>

namespace gpupool::node {
namespace {

backend::GpuInfo a100(int index, bool mig_on = false, std::vector<backend::MigInstance> instances = {}) {
  backend::GpuInfo g;
  g.index = index;
  g.name = "NVIDIA A100-SXM4-80GB";
  g.catalog_id = "a100-sxm4-80gb";
  g.mig_capable = true;
  g.mig.current = g.mig.pending = mig_on ? backend::MigMode::enabled : backend::MigMode::disabled;
  g.instances = std::move(instances);
  return g;
}

backend::MigInstance inst(const std::string& profile, int start, int size, int gi) {
  backend::MigInstance i;
  i.profile = profile;
  i.placement_start = start;
  i.placement_size = size;
  i.gpu_instance_id = gi;
  return i;
}

api::GPUMIGLayout layout(int index, bool enabled, std::vector<std::pair<std::string, std::optional<int>>> instances) {
  api::GPUMIGLayout l;
  l.index = index;
  l.enabled = enabled;
  for (auto& [p, pl] : instances) l.instances.push_back({p, pl});
  return l;
}

backend::Inventory inventory(std::vector<backend::GpuInfo> gpus, std::string driver = "550.54.15") {
  backend::Inventory inv;
  inv.driver_version = std::move(driver);
  inv.gpus = std::move(gpus);
  return inv;
}

const gpu::Catalog& catalog() { return gpu::Catalog::builtin(); }

TEST(NodePlan, MatchingNodeNeedsNothing) {
  api::GPUNodeSpec spec;
  spec.partitioning.mig = {layout(0, true, {{"3g.40gb", 4}, {"4g.40gb", 0}}), layout(1, false, {})};
  auto inv = inventory({a100(0, true, {inst("4g.40gb", 0, 4, 1), inst("3g.40gb", 4, 4, 2)}), a100(1)});
  NodePlan plan = plan_node(spec, inv, catalog());
  EXPECT_TRUE(plan.problems.empty());
  EXPECT_FALSE(plan.disruptive()) << plan.describe(inv.driver_version);
}

TEST(NodePlan, EnablesMigAndCreatesAtPlacements) {
  api::GPUNodeSpec spec;
  spec.partitioning.mig = {layout(0, true, {{"3g.40gb", 4}, {"2g.20gb", 0}})};
  auto plan = plan_node(spec, inventory({a100(0)}), catalog());
  ASSERT_EQ(plan.mig.size(), 1u);
  EXPECT_EQ(plan.mig[0].set_mig_mode, std::optional<bool>(true));
  EXPECT_TRUE(plan.mig[0].destroy.empty());
  ASSERT_EQ(plan.mig[0].create.size(), 2u);
  EXPECT_EQ(plan.mig[0].create[0], (gpu::PlacedInstance{"2g.20gb", 0, 2}));
  EXPECT_EQ(plan.mig[0].create[1], (gpu::PlacedInstance{"3g.40gb", 4, 4}));
  EXPECT_EQ(plan.describe("550.54.15"), "GPU 0: enable MIG, create 2g.20gb@0, 3g.40gb@4");
}

TEST(NodePlan, KeepsInstancesThatStay) {
  api::GPUNodeSpec spec;
  // Counts only: plan_change keeps the 3g.40gb at 4 and replaces the rest.
  spec.partitioning.mig = {layout(0, true, {{"3g.40gb", std::nullopt}, {"1g.10gb", std::nullopt}, {"1g.10gb", std::nullopt}})};
  auto inv = inventory({a100(0, true, {inst("4g.40gb", 0, 4, 1), inst("3g.40gb", 4, 4, 2)})});
  auto plan = plan_node(spec, inv, catalog());
  ASSERT_EQ(plan.mig.size(), 1u);
  EXPECT_FALSE(plan.mig[0].set_mig_mode.has_value());
  ASSERT_EQ(plan.mig[0].destroy.size(), 1u);
  EXPECT_EQ(plan.mig[0].destroy[0].profile, "4g.40gb");
  ASSERT_EQ(plan.mig[0].create.size(), 2u);
  EXPECT_EQ(plan.mig[0].create[0].profile, "1g.10gb");
}

TEST(NodePlan, DisablesMig) {
  api::GPUNodeSpec spec;
  spec.partitioning.mig = {layout(0, false, {})};
  auto plan = plan_node(spec, inventory({a100(0, true, {inst("7g.80gb", 0, 8, 1)})}), catalog());
  ASSERT_EQ(plan.mig.size(), 1u);
  EXPECT_EQ(plan.mig[0].set_mig_mode, std::optional<bool>(false));
  EXPECT_EQ(plan.mig[0].destroy.size(), 1u);
  EXPECT_EQ(plan.describe(""), "GPU 0: destroy 7g.80gb@0, disable MIG");
}

TEST(NodePlan, PendingModeIsFinished) {
  auto g = a100(0);
  g.mig.pending = backend::MigMode::enabled;  // asked for before a restart, waiting for a reset
  api::GPUNodeSpec spec;
  spec.partitioning.mig = {layout(0, true, {})};
  auto plan = plan_node(spec, inventory({g}), catalog());
  ASSERT_EQ(plan.mig.size(), 1u);
  EXPECT_EQ(plan.mig[0].set_mig_mode, std::optional<bool>(true));
}

struct ProblemCase {
  std::string name;
  std::vector<api::GPUMIGLayout> spec;
  std::string field;
  std::string message;
};

class NodePlanProblems : public ::testing::TestWithParam<ProblemCase> {};

TEST_P(NodePlanProblems, NothingChangesAndTheProblemIsNamed) {
  const auto& c = GetParam();
  api::GPUNodeSpec spec;
  spec.partitioning.mig = c.spec;
  backend::GpuInfo t4;
  t4.index = 2;
  t4.name = "Tesla T4";
  t4.catalog_id = "t4-16gb";
  auto plan = plan_node(spec, inventory({a100(0), a100(1), t4}), catalog());
  EXPECT_TRUE(plan.mig.empty()) << "a problem anywhere changes nothing";
  ASSERT_EQ(plan.problems.size(), 1u);
  EXPECT_EQ(plan.problems[0].field, c.field);
  EXPECT_EQ(plan.problems[0].message, c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Table, NodePlanProblems,
    ::testing::Values(
        ProblemCase{"NoSuchGpu", {layout(0, true, {}), layout(5, true, {})}, "spec.partitioning.mig[1]",
                    "GPU 5 does not exist (the node has 3 GPUs)"},
        ProblemCase{"NoMig", {layout(0, true, {}), layout(2, true, {})}, "spec.partitioning.mig[1]",
                    "GPU 2 (Tesla T4) does not support MIG"},
        ProblemCase{"UnknownProfile", {layout(0, true, {{"1g.5gb", std::nullopt}})}, "spec.partitioning.mig[0].instances",
                    "GPU 0: unknown profile 1g.5gb for A100-SXM4-80GB (known: 1g.10gb, 1g.10gb+me, 1g.20gb, 2g.20gb, "
                    "3g.40gb, 4g.40gb, 7g.80gb)"},
        ProblemCase{"TooBig", {layout(0, true, {{"4g.40gb", std::nullopt}, {"4g.40gb", std::nullopt}})},
                    "spec.partitioning.mig[0].instances", "GPU 0: 2 x 4g.40gb need 8 compute slices; A100-SXM4-80GB has 7"},
        ProblemCase{"BadPlacement", {layout(0, true, {{"3g.40gb", 2}})}, "spec.partitioning.mig[0].instances",
                    "GPU 0: instance 0: 3g.40gb cannot start at memory slice 2 on A100-SXM4-80GB (allowed: 0, 4)"}),
    [](const auto& param_info) { return param_info.param.name; });

TEST(NodePlan, Driver) {
  api::GPUNodeSpec spec;
  spec.driver = api::DriverSpec{};
  spec.driver->version = "570.133.20";
  spec.driver->installer.kind = api::InstallerKind::container;
  auto plan = plan_node(spec, inventory({a100(0)}), catalog());
  EXPECT_EQ(plan.driver_install, std::optional<std::string>("570.133.20"));
  EXPECT_TRUE(plan.disruptive());
  EXPECT_EQ(plan.describe("550.54.15"), "driver 550.54.15 -> 570.133.20");
  spec.driver->installer.kind = api::InstallerKind::preinstalled;
  plan = plan_node(spec, inventory({a100(0)}), catalog());
  EXPECT_FALSE(plan.driver_install);
  ASSERT_TRUE(plan.driver_problem);
  EXPECT_EQ(plan.driver_problem->message,
            "the preinstalled driver is 550.54.15, not 570.133.20 (installer kind preinstalled installs nothing)");
  spec.driver->version = "550.54.15";
  EXPECT_FALSE(plan_node(spec, inventory({a100(0)}), catalog()).driver_problem);
}

TEST(NodePlan, AmdPartitions) {
  backend::GpuInfo g;
  g.index = 0;
  g.vendor = gpu::Vendor::amd;
  g.name = "AMD Instinct MI300X";
  g.catalog_id = "mi300x-192gb";
  g.compute_partition = "SPX";
  g.memory_partition = "NPS1";
  api::GPUNodeSpec spec;
  spec.partitioning.amd = api::AMDPartitioning{api::AMDComputePartition::cpx, api::AMDMemoryPartition::nps4};
  auto plan = plan_node(spec, inventory({g}), catalog());
  ASSERT_EQ(plan.amd.size(), 1u);
  EXPECT_EQ(plan.amd[0], (AmdAction{0, "CPX", "NPS4"}));
  g.compute_partition = "CPX";
  g.memory_partition = "NPS4";
  EXPECT_FALSE(plan_node(spec, inventory({g}), catalog()).disruptive());
}

}  // namespace
}  // namespace gpupool::node
