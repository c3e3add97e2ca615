// The agent's GPU metrics collector: families built once per telemetry
// snapshot with pod labels from the pod-resources lister, kept for scrapes;
// without the kubelet, the same families without pod labels.
#include <gtest/gtest.h>

#include "gpupool/node/gpu_metrics_collector.h"

namespace gpupool::node {
namespace {

class TableLister : public podresources::PodResourcesLister {
 public:
  explicit TableLister(bool* up) : up_(up) {}
  podresources::ContainerDevicesList list() override {
    if (!*up_) throw podresources::PodResourcesUnavailable("/var/lib/kubelet/pod-resources/kubelet.sock", "UNAVAILABLE", "down");
    podresources::ContainerDevices d;
    d.namespace_ = "train";
    d.pod = "p0";
    d.container = "main";
    d.resource_name = "nvidia.com/gpu";
    d.device_ids = {"GPU-0000"};
    return {d};
  }

 private:
  bool* up_;
};

backend::Inventory one_gpu() {
  backend::Inventory inv;
  backend::GpuInfo g;
  g.index = 0;
  g.uuid = "GPU-0000";
  g.name = "NVIDIA A100-SXM4-80GB";
  inv.gpus = {g};
  return inv;
}

// The labels of the one series of `name`, as name=value pairs.
std::map<std::string, std::string> labels_of(const std::vector<metrics::FamilySnapshot>& fs, const std::string& name, double* value) {
  for (const auto& f : fs) {
    if (f.name != name || f.children.size() != 1) continue;
    std::map<std::string, std::string> out;
    for (std::size_t i = 0; i < f.label_names.size(); ++i) out[f.label_names[i]] = f.children[0].label_values[i];
    *value = f.children[0].value;
    return out;
  }
  ADD_FAILURE() << "no single series of " << name;
  return {};
}

TEST(GpuMetricsCollector, BuildsOncePerSnapshotWithPodLabelsWhileTheKubeletAnswers) {
  bool kubelet_up = true;
  std::vector<std::set<std::string>> tenant_asks;
  GpuMetricsSources sources;
  sources.inventory = [] { return std::optional<backend::Inventory>(one_gpu()); };
  sources.health = [] { return std::map<int, api::GPUHealth>{{0, api::GPUHealth::healthy}}; };
  sources.lister = std::make_unique<TableLister>(&kubelet_up);
  sources.tenants = [&tenant_asks](const std::set<std::string>& namespaces) {
    tenant_asks.push_back(namespaces);
    return std::map<std::string, std::string>{{"train", "team-a"}};
  };
  GpuMetricsCollector collector("node-a", {}, std::move(sources));
  EXPECT_TRUE(collector.families().empty()) << "nothing before the first snapshot";

  TelemetrySnapshot snap;
  snap.sequence = 1;
  backend::GpuMetrics m;
  m.index = 0;
  m.utilization_percent = 42;
  snap.metrics = {m};
  snap.xids[0].codes[79] = {2, {}, {}};
  snap.xids[0].last_code = 79;
  collector.on_snapshot(snap);
  EXPECT_TRUE(collector.attributed());
  double v = 0;
  auto labels = labels_of(collector.families(), "gpupool_gpu_utilization_ratio", &v);
  EXPECT_EQ(v, 0.42);
  EXPECT_EQ(labels["pod"], "p0");
  EXPECT_EQ(labels["namespace"], "train");
  EXPECT_EQ(labels["tenant"], "team-a");
  EXPECT_EQ(labels["node"], "node-a");
  EXPECT_EQ(tenant_asks, (std::vector<std::set<std::string>>{{"train"}})) << "asked for the holders' namespaces";
  labels_of(collector.families(), "DCGM_FI_DEV_XID_ERRORS", &v);
  EXPECT_EQ(v, 79);

  // The kubelet goes away: the next build has the same series, without pods.
  kubelet_up = false;
  m.utilization_percent = 50;
  snap.metrics = {m};
  collector.on_snapshot(snap);
  EXPECT_FALSE(collector.attributed());
  labels = labels_of(collector.families(), "gpupool_gpu_utilization_ratio", &v);
  EXPECT_EQ(v, 0.5);
  EXPECT_EQ(labels["pod"], "");
  EXPECT_EQ(labels["tenant"], "");
  EXPECT_EQ(tenant_asks.size(), 1u) << "no tenants asked for without attribution";
  kubelet_up = true;
  collector.on_snapshot(snap);
  EXPECT_TRUE(collector.attributed());
  EXPECT_EQ(tenant_asks.size(), 2u);
}

TEST(GpuMetricsCollector, WithoutATenantSourceEachNamespaceIsItsOwnTenant) {
  bool kubelet_up = true;
  GpuMetricsSources sources;
  sources.inventory = [] { return std::optional<backend::Inventory>(one_gpu()); };
  sources.lister = std::make_unique<TableLister>(&kubelet_up);
  GpuMetricsCollector collector("node-a", {}, std::move(sources));
  TelemetrySnapshot snap;
  backend::GpuMetrics m;
  m.index = 0;
  m.utilization_percent = 10;
  snap.metrics = {m};
  collector.on_snapshot(snap);
  double v = 0;
  EXPECT_EQ(labels_of(collector.families(), "gpupool_gpu_utilization_ratio", &v)["tenant"], "train");
}

TEST(GpuMetricsCollector, HolderNamespacesCoverGpusAndMigInstancesOnce) {
  struct Case {
    const char* name;
    podresources::Attribution users;
    std::set<std::string> want;
  };
  podresources::Attribution both;
  both.gpus[0] = {{"a", "p", "c"}, {"b", "q", "c"}};
  both.gpus[1] = {{"a", "r", "c"}};
  both.mig_instances[{2, 1}] = {{"c", "s", "c"}, {"a", "t", "c"}};
  podresources::Attribution mig_only;
  mig_only.mig_instances[{0, 3}] = {{"m", "p", "c"}};
  const std::vector<Case> cases = {
      {"nobody", {}, {}},
      {"whole GPUs and MIG instances, each namespace once", both, {"a", "b", "c"}},
      {"MIG instances only", mig_only, {"m"}},
  };
  for (const auto& c : cases) EXPECT_EQ(holder_namespaces(c.users), c.want) << c.name;
}

TEST(GpuMetricsCollector, XidTalliesKeepCountsAndTheLastCode) {
  std::map<int, GpuXids> xids;
  xids[1].codes[13] = {1, {}, {}};
  xids[1].codes[79] = {3, {}, {}};
  xids[1].last_code = 13;
  const auto t = xid_tallies(xids);
  EXPECT_EQ(t.at(1).counts, (std::map<int, std::int64_t>{{13, 1}, {79, 3}}));
  EXPECT_EQ(t.at(1).last, 13);
}

TEST(GpuMetricsCollector, HealthComesFromTheGpuNodeStatus) {
  rapidjson::Document d;
  d.Parse(R"({"status":{"gpus":[{"index":0,"health":"Healthy"},{"index":1,"health":"Unhealthy"},{"index":2},
              {"index":3,"health":"Sideways"}]}})");
  EXPECT_EQ(gpu_health_of(d), (std::map<int, api::GPUHealth>{{0, api::GPUHealth::healthy}, {1, api::GPUHealth::unhealthy}}));
  d.Parse(R"({"spec":{}})");
  EXPECT_TRUE(gpu_health_of(d).empty());
}

}  // namespace
}  // namespace gpupool::node
