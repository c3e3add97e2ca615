// desired_gpunode_spec: a pool turned into one node's spec, for the GPUs it reports.
#include <gtest/gtest.h>

#include "gpupool/pool/desired_spec.h"

namespace gpupool::pool {
namespace {

api::GPUStatus gpu(int index, const std::string& catalog_id, api::GPUVendor vendor = api::GPUVendor::nvidia) {
  api::GPUStatus g;
  g.index = index;
  g.catalog_id = catalog_id;
  g.vendor = vendor;
  g.model = catalog_id;
  return g;
}

api::GPUNodeStatus report(std::vector<api::GPUStatus> gpus) {
  api::GPUNodeStatus s;
  s.gpus = std::move(gpus);
  return s;
}

api::GPUPool pool_with_layout(const std::string& layout, api::MIGStrategy strategy = api::MIGStrategy::mixed) {
  api::GPUPool p;
  p.metadata.name = "train";
  api::MIGPartitioning mig;
  mig.strategy = strategy;
  mig.layout = layout;
  p.spec.partitioning = api::Partitioning{mig, std::nullopt};
  return p;
}

DesiredSpec run(const api::GPUPool& pool, const api::GPUNodeStatus* reported, const api::GPUPolicy* policy = nullptr) {
  DesiredSpecInput in;
  in.pool = &pool;
  in.policy = policy;
  in.reported = reported;
  in.catalog = &gpu::Catalog::builtin();
  return desired_gpunode_spec(in);
}

int count(const api::GPUMIGLayout& l, const std::string& profile) {
  int n = 0;
  for (const auto& i : l.instances) n += i.profile == profile && !i.placement ? 1 : 0;
  return n;
}

TEST(DesiredSpec, DriverSharingMonitoringAndTheUpgradeRulesAreCopied) {
  api::GPUPool p;
  p.metadata.name = "infer";
  api::DriverSpec d;
  d.version = "570.133.20";
  d.installer.kind = api::InstallerKind::container;
  d.installer.image = "nvcr.io/nvidia/driver:570.133.20-ubuntu22.04";
  api::UpgradeStrategy u;
  u.drain.timeout = api::Duration::literal("30m");
  u.cordon_on_failure = false;
  d.upgrade_strategy = u;
  p.spec.driver = d;
  p.spec.sharing.mode = api::SharingMode::time_slicing;
  p.spec.sharing.time_slicing = api::TimeSlicing{4, false};
  const auto r = run(p, nullptr);
  EXPECT_FALSE(r.problem);
  EXPECT_FALSE(r.waiting_for_report);
  EXPECT_EQ(r.spec.pool, "infer");
  ASSERT_TRUE(r.spec.driver);
  EXPECT_EQ(r.spec.driver->version, "570.133.20");
  EXPECT_FALSE(r.spec.driver->upgrade_strategy) << "a node has no upgrade strategy of its own";
  EXPECT_EQ(r.spec.drain.timeout, api::Duration::literal("30m"));
  EXPECT_FALSE(r.spec.cordon_on_failure);
  EXPECT_EQ(r.spec.sharing, p.spec.sharing);
  EXPECT_FALSE(r.spec.disruption_allowed);
}

TEST(DesiredSpec, UpgradeRulesComeFromThePoolThenThePolicyThenTheDefaults) {
  api::GPUPool p;
  api::GPUPolicy policy;
  api::UpgradeStrategy from_policy;
  from_policy.failure_budget = 7;
  policy.spec.upgrade = from_policy;
  EXPECT_EQ(effective_upgrade_strategy(p, nullptr), api::UpgradeStrategy{});
  EXPECT_EQ(effective_upgrade_strategy(p, &policy).failure_budget, 7);
  api::DriverSpec d;
  api::UpgradeStrategy from_pool;
  from_pool.failure_budget = 2;
  d.upgrade_strategy = from_pool;
  p.spec.driver = d;
  EXPECT_EQ(effective_upgrade_strategy(p, &policy).failure_budget, 2);
}

// The agent judges GPU health by the policy's rules: copied into the spec.
TEST(DesiredSpec, ThePolicysHealthRulesAreCopied) {
  api::GPUPool p;
  p.metadata.name = "pool";
  EXPECT_FALSE(run(p, nullptr).spec.health) << "no policy, no rules";
  api::GPUPolicy policy;
  api::HealthRules rules;
  rules.xids.push_back({{79}, api::HealthAction::cordon});
  policy.spec.health = rules;
  const auto d = run(p, nullptr, &policy);
  ASSERT_TRUE(d.spec.health);
  EXPECT_EQ(*d.spec.health, rules);
}

TEST(DesiredSpec, ANamedLayoutIsResolvedForEachGpuOfTheNode) {
  const auto status = report({gpu(0, "a100-sxm4-80gb"), gpu(1, "h100-sxm5-80gb")});
  const auto r = run(pool_with_layout("all-1g.10gb"), &status);
  ASSERT_FALSE(r.problem) << *r.problem;
  ASSERT_EQ(r.spec.partitioning.mig.size(), 2u);
  EXPECT_TRUE(r.spec.partitioning.mig[0].enabled);
  EXPECT_EQ(count(r.spec.partitioning.mig[0], "1g.10gb"), 7);
  EXPECT_EQ(r.spec.partitioning.mig[1].index, 1);
  EXPECT_EQ(count(r.spec.partitioning.mig[1], "1g.10gb"), 7);
  EXPECT_EQ(r.spec.partitioning.strategy, api::MIGStrategy::mixed);

  const auto off = run(pool_with_layout("all-disabled"), &status);
  ASSERT_FALSE(off.problem);
  ASSERT_EQ(off.spec.partitioning.mig.size(), 2u);
  EXPECT_FALSE(off.spec.partitioning.mig[0].enabled);
  EXPECT_TRUE(off.spec.partitioning.mig[0].instances.empty());
}

// The operator's mig-parted file (--mig-parted-config), written as NVIDIA
// publishes them today: pools name its configs; an unreadable config is
// reported by name and does not spoil the others.
TEST(DesiredSpec, ConfigsOfTheOperatorsMigPartedFileAreNamedLayouts) {
  const gpu::MigPartedConfig parted = gpu::parse_mig_parted(R"(version: v1
mig-configs:
  video-and-compute:
    - devices: all
      mig-enabled: true
      mig-devices:
        "1g.24gb+me.all": 1
        "1g.24gb-me": 3
  broken:
    - devices: all
      mig-enabled: true
      mig-devices:
        "1g.24gb+me+gfx": 1
  two-media:
    - devices: all
      mig-enabled: true
      mig-devices:
        "1g.24gb+me": 1
        "1g.24gb+me.all": 1
)", "operator.yaml");
  const auto status = report({gpu(0, "rtx-pro-6000-blackwell-96gb"), gpu(1, "rtx-pro-6000-blackwell-96gb")});
  auto run_named = [&](const std::string& layout) {
    const api::GPUPool pool = pool_with_layout(layout);
    DesiredSpecInput in;
    in.pool = &pool;
    in.reported = &status;
    in.catalog = &gpu::Catalog::builtin();
    in.mig_parted = &parted;
    return desired_gpunode_spec(in);
  };
  const auto ok = run_named("video-and-compute");
  ASSERT_FALSE(ok.problem) << *ok.problem;
  ASSERT_EQ(ok.spec.partitioning.mig.size(), 2u);
  EXPECT_EQ(count(ok.spec.partitioning.mig[1], "1g.24gb+me.all"), 1);
  EXPECT_EQ(count(ok.spec.partitioning.mig[1], "1g.24gb-me"), 3);

  const auto broken = run_named("broken");
  ASSERT_TRUE(broken.problem);
  EXPECT_NE(broken.problem->find("broken"), std::string::npos) << *broken.problem;
  EXPECT_TRUE(broken.spec.partitioning.mig.empty());

  const auto two = run_named("two-media");
  ASSERT_TRUE(two.problem);
  EXPECT_NE(two.problem->find("at most one instance per GPU may be +me or +me.all"), std::string::npos) << *two.problem;
  EXPECT_TRUE(two.spec.partitioning.mig.empty());
}

TEST(DesiredSpec, ALayoutThatDoesNotFitIsNotSentAndSaysWhy) {
  struct Row {
    std::string name;
    api::GPUPool pool;
    api::GPUNodeStatus status;
    std::string problem_contains;
  };
  api::GPUPool devices_pool = pool_with_layout("");
  devices_pool.spec.partitioning->nvidia->devices = {{{5}, {{"3g.40gb", 1}}}};
  api::GPUPool too_many = pool_with_layout("");
  too_many.spec.partitioning->nvidia->devices = {{{}, {{"1g.10gb", 8}}}};
  api::GPUPool single_two = pool_with_layout("", api::MIGStrategy::single);
  single_two.spec.partitioning->nvidia->devices = {{{0}, {{"3g.40gb", 2}}}, {{1}, {{"1g.10gb", 7}}}};
  const std::vector<Row> rows = {
      {"no MIG on the model", pool_with_layout("all-1g.10gb"), report({gpu(0, "t4-16gb")}), "GPU 0 (Tesla T4)"},
      {"profile unknown to the model", pool_with_layout("all-1g.20gb"), report({gpu(0, "a100-sxm4-40gb")}),
       "GPU 0 (A100-SXM4-40GB)"},
      {"a GPU index the node lacks", devices_pool, report({gpu(0, "a100-sxm4-80gb")}), "names GPU 5"},
      {"more instances than fit", too_many, report({gpu(0, "a100-sxm4-80gb")}), "need 8 compute slices"},
      {"unknown model", pool_with_layout("all-1g.10gb"), report({gpu(0, "")}), "not in the catalog"},
      {"single strategy, two profiles", single_two, report({gpu(0, "a100-sxm4-80gb"), gpu(1, "a100-sxm4-80gb")}),
       "one profile on the whole node"},
  };
  for (const auto& row : rows) {
    const auto r = run(row.pool, &row.status);
    ASSERT_TRUE(r.problem) << row.name;
    EXPECT_NE(r.problem->find(row.problem_contains), std::string::npos) << row.name << ": " << *r.problem;
    EXPECT_TRUE(r.spec.partitioning.mig.empty()) << row.name << ": a layout was sent anyway";
  }
}

TEST(DesiredSpec, ExplicitDevicesByIndexWithADefaultEntry) {
  api::GPUPool p = pool_with_layout("");
  p.spec.partitioning->nvidia->devices = {{{}, {{"1g.10gb", 7}}}, {{0, 2}, {{"3g.40gb", 2}}}};
  const auto status = report({gpu(0, "a100-sxm4-80gb"), gpu(1, "a100-sxm4-80gb"), gpu(2, "a100-sxm4-80gb")});
  const auto r = run(p, &status);
  ASSERT_FALSE(r.problem) << *r.problem;
  ASSERT_EQ(r.spec.partitioning.mig.size(), 3u);
  EXPECT_EQ(count(r.spec.partitioning.mig[0], "3g.40gb"), 2);
  EXPECT_EQ(count(r.spec.partitioning.mig[1], "1g.10gb"), 7);
  EXPECT_EQ(count(r.spec.partitioning.mig[2], "3g.40gb"), 2);
}

TEST(DesiredSpec, NoReportYetMeansNoLayoutYet) {
  const auto r = run(pool_with_layout("all-1g.10gb"), nullptr);
  EXPECT_TRUE(r.waiting_for_report);
  EXPECT_FALSE(r.problem);
  EXPECT_TRUE(r.spec.partitioning.mig.empty());
  const auto empty = report({});
  EXPECT_TRUE(run(pool_with_layout("all-1g.10gb"), &empty).waiting_for_report);
}

TEST(DesiredSpec, AmdModesAndAnUnownedNode) {
  api::GPUPool p;
  p.metadata.name = "mi300x";
  api::AMDPartitioning amd;
  amd.compute_partition = api::AMDComputePartition::cpx;
  amd.memory_partition = api::AMDMemoryPartition::nps4;
  p.spec.partitioning = api::Partitioning{std::nullopt, amd};
  const auto status = report({gpu(0, "mi300x-192gb", api::GPUVendor::amd)});
  const auto r = run(p, &status);
  ASSERT_TRUE(r.spec.partitioning.amd);
  EXPECT_EQ(*r.spec.partitioning.amd, amd);
  const auto unowned = unowned_gpunode_spec("gpu-7");
  EXPECT_EQ(unowned.node_name, "gpu-7");
  EXPECT_TRUE(unowned.pool.empty());
  EXPECT_FALSE(unowned.driver);
  EXPECT_TRUE(unowned.partitioning.mig.empty());
  EXPECT_FALSE(unowned.disruption_allowed);
}

}  // namespace
}  // namespace gpupool::pool
