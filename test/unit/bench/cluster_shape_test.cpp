// The scale benchmark's cluster (tools/bench/scale/cluster_shape.h) and the
// manifests it creates: sizes, no device given twice, usage within guarantees;
// which pods the usage probes delete.
#include "scale/cluster_shape.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <map>
#include <set>

#include "scale/seed_manifests.h"
#include "scale/usage_probe.h"

namespace gpupool::bench {
namespace {

TEST(ClusterShape, DefaultIsKubernetesLargestCluster) {
  const ShapeOptions o;
  EXPECT_EQ(o.nodes, 5000);
  EXPECT_EQ(o.pods, 150000);
  EXPECT_EQ(o.tenants, 2000);
  EXPECT_EQ(o.pools, 20);
  EXPECT_EQ(o.gpus_per_node, 8);
}

TEST(ClusterShape, SizesMembersAndUsageAddUp) {
  struct Row {
    int nodes, pools, tenants, pods, gpus;
  };
  for (const Row r : {Row{8, 4, 3, 100, 2}, Row{50, 20, 40, 3000, 8}, Row{5, 5, 1, 0, 1}, Row{4, 4, 10, 500, 1}}) {
    SCOPED_TRACE(testing::Message() << r.nodes << " nodes, " << r.pods << " pods");
    ShapeOptions o;
    o.nodes = r.nodes, o.pools = r.pools, o.tenants = r.tenants, o.pods = r.pods, o.gpus_per_node = r.gpus;
    const ClusterShape s = make_shape(o);
    ASSERT_EQ(s.nodes.size(), static_cast<std::size_t>(r.nodes));
    ASSERT_EQ(s.pools.size(), static_cast<std::size_t>(r.pools));
    ASSERT_EQ(s.pods.size(), static_cast<std::size_t>(r.pods));
    int members = 0;
    for (const auto& [pool, n] : s.pool_members) members += n;
    EXPECT_EQ(members, r.nodes);

    // Devices handed out per node never exceed what it has; GPU pods sit in their tenant's pool.
    std::map<int, int> taken;
    std::vector<int> used(static_cast<std::size_t>(r.tenants), 0);
    std::size_t gpu_pods = 0;
    for (const auto& p : s.pods) {
      if (!p.gpu) continue;
      ++gpu_pods;
      ++taken[p.node];
      ++used[static_cast<std::size_t>(p.tenant)];
      EXPECT_EQ(s.nodes[static_cast<std::size_t>(p.node)].pool, s.tenants[static_cast<std::size_t>(p.tenant)].pool);
    }
    for (const auto& [node, n] : taken) {
      const auto& pool = s.pools[static_cast<std::size_t>(s.nodes[static_cast<std::size_t>(node)].pool)];
      EXPECT_LE(n, r.gpus * pool.devices_per_gpu) << s.nodes[static_cast<std::size_t>(node)].name;
    }
    EXPECT_EQ(gpu_pods, s.gpu_pods);
    EXPECT_EQ(used, s.tenant_used);
    EXPECT_LE(gpu_pods, static_cast<std::size_t>((r.pods + 1) / 2));
    for (std::size_t t = 0; t < s.tenants.size(); ++t) {
      EXPECT_GE(s.tenants[t].guarantee, std::max(1, s.tenant_used[t])) << "a pod over its grant";
      EXPECT_LE(s.tenants[t].guarantee, std::max(1, s.tenant_used[t] + 3));
    }
  }
}

TEST(ClusterShape, AboutHalfThePodsGetAGpuAtTheDefaultDensity) {
  ShapeOptions o;
  o.nodes = 100, o.pods = 3000, o.tenants = 40;  // 30 pods per node, as at full size
  const ClusterShape s = make_shape(o);
  EXPECT_GE(s.gpu_pods, 1300u);
  EXPECT_LE(s.gpu_pods, 1500u);
}

TEST(ClusterShape, SameSeedSameCluster) {
  ShapeOptions o;
  o.nodes = 30, o.pods = 400, o.tenants = 12, o.pools = 6;
  const ClusterShape a = make_shape(o), b = make_shape(o);
  EXPECT_EQ(a.tenant_used, b.tenant_used);
  for (std::size_t i = 0; i < a.pods.size(); ++i) EXPECT_EQ(pod_manifest(a, i), pod_manifest(b, i));
  o.seed = 2;
  const ClusterShape c = make_shape(o);
  bool differs = false;
  for (std::size_t i = 0; i < a.pods.size(); ++i) differs = differs || pod_manifest(a, i) != pod_manifest(c, i);
  EXPECT_TRUE(differs);
}

TEST(ClusterShape, OutOfRangeOptionsNameTheFlag) {
  auto refused = [](ShapeOptions o) {
    try {
      make_shape(o);
      return std::string("accepted");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
  };
  ShapeOptions o;
  o.nodes = 0;
  EXPECT_NE(refused(o).find("--nodes"), std::string::npos);
  o = {}, o.pools = 6000;
  EXPECT_NE(refused(o).find("--pools"), std::string::npos);
  o = {}, o.gpus_per_node = 17;
  EXPECT_NE(refused(o).find("--gpus-per-node"), std::string::npos);
  o = {}, o.tenants = 0;
  EXPECT_NE(refused(o).find("--tenants"), std::string::npos);
}

TEST(SeedManifests, AreJsonWithTheFieldsTheControllerReads) {
  ShapeOptions o;
  o.nodes = 8, o.pools = 4, o.tenants = 4, o.pods = 16;
  const ClusterShape s = make_shape(o);
  auto parse = [](const std::string& text) {
    rapidjson::Document d;
    d.Parse(text.c_str());
    EXPECT_FALSE(d.HasParseError()) << text;
    return d;
  };
  const auto mig_pool = parse(pool_manifest(s, 0));
  EXPECT_STREQ(mig_pool["spec"]["nodeSelector"]["matchLabels"][kBenchPoolLabel].GetString(), "bench-00");
  EXPECT_EQ(mig_pool["spec"]["partitioning"]["nvidia"]["devices"][0]["profiles"]["1g.10gb"].GetInt(), 7);
  EXPECT_STREQ(mig_pool["spec"]["driver"]["upgradeStrategy"]["maxUnavailable"].GetString(), "10%");
  const auto amd_pool = parse(pool_manifest(s, 3));
  EXPECT_FALSE(amd_pool["spec"].HasMember("driver"));
  EXPECT_STREQ(amd_pool["spec"]["vendor"].GetString(), "amd");

  const auto node = parse(node_manifest(s, 0));
  EXPECT_STREQ(node["metadata"]["labels"][kBenchPoolLabel].GetString(), "bench-00");
  EXPECT_STREQ(node["status"]["capacity"]["nvidia.com/mig-1g.10gb"].GetString(), "56");
  EXPECT_STREQ(node["metadata"]["annotations"]["kwok.x-k8s.io/node"].GetString(), "fake");

  const auto quota = parse(quota_manifest(s, 1));
  EXPECT_STREQ(quota["spec"]["poolRef"]["name"].GetString(), "bench-01");
  EXPECT_EQ(quota["spec"]["resources"]["nvidia.com/gpu"].GetInt(), s.tenants[1].guarantee);

  for (std::size_t i = 0; i < s.pods.size(); ++i) {
    const auto pod = parse(pod_manifest(s, i));
    EXPECT_STREQ(pod["spec"]["nodeName"].GetString(), s.nodes[static_cast<std::size_t>(s.pods[i].node)].name.c_str());
    EXPECT_EQ(pod["spec"]["containers"][0]["resources"].HasMember("limits"), s.pods[i].gpu);
  }
}

}  // namespace
}  // namespace gpupool::bench

namespace gpupool::bench {
namespace {

TEST(UsageProbe, GpuPodsTenantByTenantMostFirstAtMostCount) {
  ShapeOptions o;
  o.nodes = 20, o.pools = 4, o.tenants = 6, o.pods = 400;
  const ClusterShape s = make_shape(o);
  const auto all = probe_pods(s, 100000);
  EXPECT_EQ(all.size(), s.gpu_pods) << "every GPU pod, once";
  std::set<std::size_t> unique(all.begin(), all.end());
  EXPECT_EQ(unique.size(), all.size());
  for (std::size_t i : all) EXPECT_TRUE(s.pods[i].gpu);

  // The first round takes one pod of each tenant holding any, the busiest first.
  std::vector<int> holders;
  for (std::size_t t = 0; t < s.tenant_used.size(); ++t) {
    if (s.tenant_used[t] > 0) holders.push_back(static_cast<int>(t));
  }
  std::set<int> first_round;
  for (std::size_t k = 0; k < holders.size(); ++k) first_round.insert(s.pods[all[k]].tenant);
  EXPECT_EQ(first_round.size(), holders.size());
  int busiest = 0;
  for (std::size_t t = 0; t < s.tenant_used.size(); ++t) busiest = std::max(busiest, s.tenant_used[t]);
  EXPECT_EQ(s.tenant_used[static_cast<std::size_t>(s.pods[all[0]].tenant)], busiest);

  const auto some = probe_pods(s, 5);
  EXPECT_EQ(some, std::vector<std::size_t>(all.begin(), all.begin() + 5));
  EXPECT_TRUE(probe_pods(s, 0).empty());
}

TEST(UsageProbe, PercentilesAreNearestRank) {
  UsageLag lag;
  for (int i = 100; i >= 1; --i) lag.lags_ms.push_back(i);
  EXPECT_EQ(lag.p50_ms(), 50);
  EXPECT_EQ(lag.p99_ms(), 99);
  lag.lags_ms = {7};
  EXPECT_EQ(lag.p99_ms(), 7);
}

}  // namespace
}  // namespace gpupool::bench

namespace gpupool::bench {
namespace {

TEST(ClusterShape, WithoutPodsTakesTheirDevicesFromTheirTenants) {
  ShapeOptions o;
  o.nodes = 8, o.pools = 4, o.tenants = 3, o.pods = 100, o.gpus_per_node = 2;
  const ClusterShape s = make_shape(o);
  std::vector<std::size_t> gone;
  std::vector<int> want = s.tenant_used;
  for (std::size_t i = 0; i < s.pods.size() && gone.size() < 5; ++i) {
    gone.push_back(i);  // GPU pods and others alike
    if (s.pods[i].gpu) --want[static_cast<std::size_t>(s.pods[i].tenant)];
  }
  const ClusterShape after = without_pods(s, gone);
  EXPECT_EQ(after.tenant_used, want);
  std::size_t gpu_gone = 0;
  for (std::size_t i : gone) gpu_gone += s.pods[i].gpu ? 1 : 0;
  EXPECT_EQ(after.gpu_pods, s.gpu_pods - gpu_gone);
  EXPECT_EQ(after.pods.size(), s.pods.size());
  EXPECT_EQ(after.pool_members, s.pool_members);
}

}  // namespace
}  // namespace gpupool::bench
