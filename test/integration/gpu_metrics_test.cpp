// The agent's GPU metrics as users see them: a real Prometheus (Debian
// package prometheus), started on loopback, scrapes two simulated agents and
// the controller. The pods come from a kubelet pod-resources gRPC server the
// test runs. A PromQL query finds a whole GPU's utilisation labelled with the
// pod and namespace using it, and with its tenant (the namespace's
// gpupool.io/tenant label, else its name, as the agent reads it from the API
// server), DCGM_FI_DEV_GPU_UTIL with the same value, and for each MIG instance
// its vendor-neutral utilisation and DCGM_FI_PROF_GR_ENGINE_ACTIVE.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "gpupool/testenv/process.h"
#include "support/fake_kubelet.h"
#include "support/fleet_fixture.h"
#include "support/json_log.h"
#include "support/promtool.h"

namespace gpupool::test {
namespace {

using podresources::testing::FakeKubelet;
using podresources::testing::make_response;

// The port a process's runtime::Manager logged serving /metrics on; 0 until then.
int metrics_port(const std::string& log) {
  int port = 0;
  for (const auto& l : read_json_log(log)) {
    if (auto pos = l.msg.find("serving metrics on port "); pos != std::string::npos) port = std::stoi(l.msg.substr(pos + 24));
  }
  return port;
}

class GpuMetricsTest : public FleetTest {
 protected:
  void TearDown() override {
    prometheus_.reset();
    FleetTest::TearDown();
  }
  // Prometheus scraping `agents` (job gpupool-agent) and the controller every second.
  void start_prometheus(const std::vector<int>& agents, int controller) {
    prometheus_port_ = free_port();
    ASSERT_GT(prometheus_port_, 0);
    std::string targets;
    for (int p : agents) targets += std::string(targets.empty() ? "" : ", ") + "'127.0.0.1:" + std::to_string(p) + "'";
    std::ofstream(dir_ + "/prometheus.yml")
        << "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
           "scrape_configs:\n"
           "  - job_name: gpupool-agent\n    honor_labels: true\n    static_configs: [{targets: ["
        << targets << "]}]\n"
        << "  - job_name: gpupool-controller\n    static_configs: [{targets: ['127.0.0.1:" << controller << "']}]\n";
    testenv::SpawnSpec spec;
    spec.path = "prometheus";
    spec.args = {"--config.file=" + dir_ + "/prometheus.yml", "--storage.tsdb.path=" + dir_ + "/tsdb",
                 "--web.listen-address=127.0.0.1:" + std::to_string(prometheus_port_), "--log.level=warn"};
    spec.log_file = dir_ + "/prometheus.log";
    prometheus_ = std::make_unique<testenv::Process>(testenv::Process::spawn(spec));
  }
  // The result vector of an instant query (empty on any error).
  rapidjson::Document query(const std::string& promql) {
    auto r = testenv::run_command("curl", {"-sfG", "http://127.0.0.1:" + std::to_string(prometheus_port_) + "/api/v1/query",
                                           "--data-urlencode", "query=" + promql});
    rapidjson::Document d;
    if (r.status != 0) return d;
    d = kube::parse_json(r.out);
    return d;
  }
  // The one series `promql` returns, waiting until Prometheus has it: its labels and value.
  [[nodiscard]] bool one_series(const std::string& promql, std::map<std::string, std::string>& labels, double& value) {
    std::string last;
    const bool ok = testenv::wait_until([&] {
      auto d = query(promql);
      const auto* result = at(d, {"data", "result"});
      if (!result || !result->IsArray() || result->Size() != 1) {
        last = d.IsObject() ? kube::to_json(d) : "(no answer)";
        return false;
      }
      labels.clear();
      for (const auto& m : (*result)[0]["metric"].GetObject()) labels[m.name.GetString()] = m.value.GetString();
      value = std::stod((*result)[0]["value"][1].GetString());
      return true;
    }, 60s);
    if (!ok) ADD_FAILURE() << promql << " never returned one series; last answer: " << last << "\n" << log_tail("prometheus.log");
    return ok;
  }

  int prometheus_port_ = 0;
  std::unique_ptr<testenv::Process> prometheus_;
};

TEST_F(GpuMetricsTest, PrometheusSeesUtilisationByPodAndPerMigInstance) {
  // Node A: two whole A100s, GPU 0 at 42 % and held by train/p0, GPU 1 by
  // <ns()>/p1 (the fake kubelet says so). ns() is labelled with tenant team-a
  // before the agents start (they cache a namespace's tenant for 5 minutes);
  // train has no such label, so its tenant is train.
  // Node B: one A100 that the pool splits into two 3g.40gb instances, at 17 % and 33 %.
  // Node B's kubelet knows no pods; node A's starts once GPU 0's UUID is known
  // (the agent meanwhile runs without attribution, as with a kubelet restarting).
  create_namespace(cluster(), "train");
  {
    std::string out;
    ASSERT_EQ(cluster().kubectl({"label", "namespace", ns(), "gpupool.io/tenant=team-a"}, &out), 0) << out;
  }
  FakeKubelet kubelet_b(dir_ + "/kubelet-b.sock", make_response({}));
  const std::vector<std::string> common = {"--metrics-bind-address=127.0.0.1:0", "--telemetry-interval=1"};
  agent_args_ = common;
  agent_args_.push_back("--pod-resources-socket=" + dir_ + "/kubelet-a.sock");
  const auto a = fleet(140, 1, {{"pool-test", "metrics-whole"}},
                       "driverVersion: \"550.54.15\"\ngpus: [{model: a100-sxm4-80gb, count: 2}]\n"
                       "telemetry:\n  0: {utilizationPercent: 42}\n")[0];
  agent_args_ = common;
  agent_args_.push_back("--pod-resources-socket=" + dir_ + "/kubelet-b.sock");
  const auto b = fleet(141, 1, {{"pool-test", "metrics-mig"}},
                       "driverVersion: \"550.54.15\"\ngpus: [{model: a100-sxm4-80gb, count: 1}]\n"
                       "telemetry:\n  0:\n    instances:\n"
                       "      1: {utilizationPercent: 17, graphicsEngineActive: 0.17}\n"
                       "      2: {utilizationPercent: 33, graphicsEngineActive: 0.33}\n")[0];
  const auto node_a = get(kGpuNodes, a);
  const auto* gpus_a = at(node_a, {"status", "gpus"});
  ASSERT_TRUE(gpus_a && gpus_a->IsArray() && !gpus_a->Empty());
  const std::string gpu0 = str((*gpus_a)[0], {"uuid"});
  ASSERT_EQ(gpus_a->Size(), 2u);
  const std::string gpu1 = str((*gpus_a)[1], {"uuid"});
  ASSERT_FALSE(gpu0.empty());
  ASSERT_FALSE(gpu1.empty());
  FakeKubelet kubelet_a(dir_ + "/kubelet-a.sock", make_response({{"train", "p0", {{"main", {{"nvidia.com/gpu", {gpu0}}}}}},
                                                                 {ns(), "p1", {{"main", {{"nvidia.com/gpu", {gpu1}}}}}}}));

  start_controller({"--metrics-bind-address=127.0.0.1:0"});
  apply_pool(pool_yaml("metrics-mig", "pool-test: metrics-mig",
                       "  partitioning:\n    nvidia: {strategy: mixed, layout: all-3g.40gb}\n"));
  wait_for(120s, [&] {
    const auto node_b = get(kGpuNodes, b);
    const auto* gpus_b = at(node_b, {"status", "gpus"});
    if (!gpus_b || !gpus_b->IsArray() || gpus_b->Empty()) return false;
    const auto* inst = at((*gpus_b)[0], {"partition", "instances"});
    return inst && inst->IsArray() && inst->Size() == 2;
  }, "node B's two MIG instances");

  int agent_a = 0, agent_b = 0, controller = 0;
  wait_for(60s, [&] {
    agent_a = metrics_port(dir_ + "/" + a + ".log");
    agent_b = metrics_port(dir_ + "/" + b + ".log");
    controller = metrics_port(dir_ + "/controller.log");
    return agent_a && agent_b && controller;
  }, "the metrics ports in the logs");
  ASSERT_NO_FATAL_FAILURE(start_prometheus({agent_a, agent_b}, controller));

  std::map<std::string, std::string> labels;
  double v = 0;
  ASSERT_TRUE(one_series("gpupool_gpu_utilization_ratio{pod=\"p0\"}", labels, v));
  EXPECT_EQ(v, 0.42);
  EXPECT_EQ(labels["namespace"], "train");
  EXPECT_EQ(labels["tenant"], "train");
  EXPECT_EQ(labels["container"], "main");
  EXPECT_EQ(labels["node"], a);
  EXPECT_EQ(labels["gpu"], "0");
  ASSERT_TRUE(one_series("gpupool_gpu_utilization_ratio{pod=\"p1\"}", labels, v));
  EXPECT_EQ(labels["namespace"], ns());
  EXPECT_EQ(labels["tenant"], "team-a");
  EXPECT_EQ(labels["gpu"], "1");
  ASSERT_TRUE(one_series("DCGM_FI_DEV_GPU_UTIL{pod=\"p0\",namespace=\"train\"}", labels, v));
  EXPECT_EQ(v, 42);
  EXPECT_EQ(labels["UUID"], gpu0);
  EXPECT_EQ(labels["Hostname"], a);

  for (const auto& [gi, util] : std::vector<std::pair<std::string, double>>{{"1", 0.17}, {"2", 0.33}}) {
    ASSERT_TRUE(one_series("gpupool_gpu_utilization_ratio{node=\"" + b + "\",gpu_instance_id=\"" + gi + "\"}", labels, v));
    EXPECT_DOUBLE_EQ(v, util);
    EXPECT_EQ(labels["mig_profile"], "3g.40gb");
    ASSERT_TRUE(one_series("DCGM_FI_PROF_GR_ENGINE_ACTIVE{Hostname=\"" + b + "\",GPU_I_ID=\"" + gi + "\"}", labels, v));
    EXPECT_DOUBLE_EQ(v, util);
    EXPECT_EQ(labels["GPU_I_PROFILE"], "3g.40gb");
  }
  // No whole-GPU utilisation for a GPU in MIG mode, in either set.
  EXPECT_EQ(query("DCGM_FI_DEV_GPU_UTIL{Hostname=\"" + b + "\"}")["data"]["result"].Size(), 0u);
  ASSERT_TRUE(one_series("up{job=\"gpupool-controller\"}", labels, v));
  EXPECT_EQ(v, 1);

  // promtool on what the agents serve: nothing but dcgm-exporter's own
  // camelCase label names (UUID, modelName, Hostname), which dashboards need.
  if (const auto promtool = find_promtool()) {
    for (int port : {agent_a, agent_b}) {
      const auto r = testenv::run_command("curl", {"-sf", "http://127.0.0.1:" + std::to_string(port) + "/metrics"});
      ASSERT_EQ(r.status, 0);
      EXPECT_NE(r.out.find("gpupool_gpu_info{"), std::string::npos);
      const auto check = promtool_check_metrics(*promtool, r.out);
      std::istringstream lines(check.output);
      for (std::string line; std::getline(lines, line);) {
        EXPECT_TRUE(line.rfind("DCGM_", 0) == 0 && line.find("not 'camelCase'") != std::string::npos) << line;
      }
    }
  }
}

}  // namespace
}  // namespace gpupool::test
