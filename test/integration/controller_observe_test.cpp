// gpupool-controller as users run it: pointed at a kubeconfig, it connects,
// lists and watches nodes, logs them (as JSON with --log-format=json), serves
// metrics that pass `promtool check metrics` (the runtime's families, its
// build, each pool's gauges) and exits 0 on SIGTERM.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "gpupool/testenv/process.h"
#include "support/cluster_fixture.h"
#include "support/json_log.h"
#include "support/kube_test_helpers.h"
#include "support/promtool.h"

namespace gpupool::test {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

std::vector<std::string> json_messages(const std::string& path) {
  std::vector<std::string> out;
  for (auto& l : read_json_log(path)) out.push_back(std::move(l.msg));
  return out;
}

bool logged(const std::string& path, const std::string& needle) { return any_with(read_json_log(path), needle); }

// The port a process (its runtime::Manager) logged serving /metrics on; 0 until then.
int metrics_port(const std::string& log) {
  int port = 0;
  for (const auto& m : json_messages(log)) {
    if (auto pos = m.find("serving metrics on port "); pos != std::string::npos) port = std::stoi(m.substr(pos + 24));
  }
  return port;
}

std::string scrape(int port) {
  auto r = testenv::run_command("curl", {"-sf", "http://127.0.0.1:" + std::to_string(port) + "/metrics"});
  if (r.status != 0) throw std::runtime_error("curl /metrics: exit " + std::to_string(r.status) + " " + r.err);
  return r.out;
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

class ControllerObserveTest : public ClusterTest {
 protected:
  static void SetUpTestSuite() { install_gpupool_crds(shared_cluster()); }
};

TEST_F(ControllerObserveTest, ListsAndWatchesNodesThenStopsOnSigterm) {
  NodeSpec gpu;
  gpu.capacity = {{"nvidia.com/gpu", "8"}};
  create_kwok_nodes(cluster(), 1, gpu);

  std::string dir = make_temp_dir("controller");
  std::string log = dir + "/controller.log";
  testenv::SpawnSpec spec;
  spec.path = GPUPOOL_CONTROLLER_BIN;
  spec.args = {"--kubeconfig", cluster().kubeconfig_path(), "--log-format=json",
               "--metrics-bind-address=127.0.0.1:0", "--health-probe-bind-address=127.0.0.1:0"};
  spec.log_file = log;
  auto proc = testenv::Process::spawn(spec);

  wait_for(60s, [&] { return logged(log, "node kwok-node-0 Ready nvidia.com/gpu=8"); }, "the listed node in the log");
  EXPECT_TRUE(logged(log, "connected: Kubernetes v1.37.2"));

  NodeSpec more = gpu;
  more.first_index = 1;
  create_kwok_nodes(cluster(), 1, more);
  wait_for(60s, [&] { return logged(log, "node kwok-node-1 Ready nvidia.com/gpu=8"); }, "the watched node in the log");

  // The metrics the controller serves pass promtool's lint and carry the
  // controller-runtime families dashboards expect.
  const int port = metrics_port(log);
  ASSERT_GT(port, 0) << "the controller did not log its metrics port";
  const std::string text = scrape(port);
  for (const char* family : {"controller_runtime_reconcile_total{controller=\"node-inventory\",result=\"success\"}",
                             "controller_runtime_reconcile_time_seconds_bucket", "workqueue_adds_total{name=\"node-inventory\"}",
                             "workqueue_depth", "rest_client_requests_total{code=\"200\",method=\"GET\"",
                             "controller_runtime_max_concurrent_reconciles{controller=\"node-inventory\"} 1",
                             "gpupool_build_info{version=\""}) {
    EXPECT_NE(text.find(family), std::string::npos) << "missing " << family;
  }
  const auto promtool = find_promtool();
  ASSERT_TRUE(promtool) << "promtool not on PATH (Debian package prometheus)";
  const auto lint = promtool_check_metrics(*promtool, text);
  EXPECT_EQ(lint.exit_code, 0) << "promtool check metrics: " << lint.output;

  proc.signal(SIGTERM);
  ASSERT_TRUE(proc.wait_until(std::chrono::steady_clock::now() + 20s)) << "the controller did not exit after SIGTERM";
  EXPECT_EQ(proc.exit_status(), 0);
  EXPECT_TRUE(logged(log, "shutting down"));
  for (const auto& m : json_messages(log)) {
    EXPECT_EQ(m.find(cluster().admin_token()), std::string::npos) << "a token was logged";
  }
  EXPECT_TRUE(logged(log, "controller node-inventory: stopped")) << "workers drained before exit";
  delete_nodes(cluster(), {"kwok-node-0", "kwok-node-1"});
  remove_tree(dir);
}

// A pool's gauges on the controller's /metrics once it reconciled (capacity
// from its member's Node, node counts, the rollout), clean for promtool, and
// gone when the pool is deleted; gpupool_build_info on the controller's and an
// agent's /metrics.
TEST_F(ControllerObserveTest, ServesPoolAndBuildMetrics) {
  const std::string pool = "observe-metrics";
  NodeSpec member;
  member.first_index = 5;
  member.labels = {{"gpupool-test/observe", "metrics"}};
  member.capacity = {{"nvidia.com/gpu", "4"}};
  const auto members = create_kwok_nodes(cluster(), 1, member);
  NodeSpec other;
  other.first_index = 6;
  const auto others = create_kwok_nodes(cluster(), 1, other);
  std::string dir = make_temp_dir("controller-metrics");
  const std::string log = dir + "/controller.log", agent_log = dir + "/agent.log";
  // Whatever happens, the next tests find none of it.
  struct Cleanup {
    ControlPlane& c;
    std::string pool, dir;
    std::vector<std::string> nodes;
    ~Cleanup() {
      c.kubectl_result({"patch", "gpupool", pool, "--type=merge", "-p", R"({"metadata":{"finalizers":null}})"});
      c.kubectl_result({"delete", "gpupool", pool, "--ignore-not-found", "--wait=false"});
      for (const auto& n : nodes) c.kubectl_result({"delete", "gpunode", n, "--ignore-not-found", "--wait=false"});
      delete_nodes(c, nodes);
      if (::testing::Test::HasFailure()) {
        std::cerr << "logs kept in " << dir << "\n";
      } else {
        remove_tree(dir);
      }
    }
  } cleanup{cluster(), pool, dir, {members[0], others[0]}};

  testenv::SpawnSpec spec;
  spec.path = GPUPOOL_CONTROLLER_BIN;
  spec.args = {"--kubeconfig", cluster().kubeconfig_path(), "--log-format=json", "--metrics-bind-address=127.0.0.1:0",
               "--health-probe-bind-address=0", "--agent-namespace", "gpupool-system"};
  spec.log_file = log;
  auto proc = testenv::Process::spawn(spec);
  testenv::SpawnSpec agent_spec;
  agent_spec.path = GPUPOOL_AGENT_BIN;
  agent_spec.args = {"--kubeconfig", cluster().kubeconfig_path(), "--node-name", others[0], "--namespace", "gpupool-system",
                     "--backend", "simulated", "--simulated-gpus", "a100-sxm4-80gb=1", "--simulated-state",
                     dir + "/agent-state.json", "--metrics-bind-address=127.0.0.1:0", "--health-probe-bind-address=0",
                     "--log-format=json"};
  agent_spec.log_file = agent_log;
  auto agent = testenv::Process::spawn(agent_spec);

  std::string out;
  ASSERT_EQ(cluster().kubectl({"apply", "--server-side", "-f", "-"}, &out,
                              "apiVersion: gpupool.io/v1alpha1\nkind: GPUPool\nmetadata:\n  name: " + pool +
                                  "\nspec:\n  nodeSelector:\n    matchLabels:\n      gpupool-test/observe: metrics\n"),
            0)
      << out;

  wait_for(60s, [&] { return metrics_port(log) > 0; }, "the controller's metrics port in its log");
  const int port = metrics_port(log);
  // The pool's series are published one after another: a scrape may fall
  // between them, so wait for a scrape that shows them all.
  const std::vector<std::string> lines = {R"(gpupool_pool_capacity{pool=")" + pool + R"(",resource="nvidia.com/gpu"} 4)",
                                          R"(gpupool_pool_member_nodes{pool=")" + pool + R"("} 1)",
                                          R"(gpupool_pool_nodes{pool=")" + pool + R"(",state="ready"} )",
                                          R"(gpupool_pool_nodes{pool=")" + pool + R"(",state="failed"} 0)",
                                          R"(gpupool_pool_rollout_nodes{pool=")" + pool + R"(",state="pending"} )",
                                          R"(gpupool_pool_rollout_paused{pool=")" + pool + R"("} 0)",
                                          std::string("# TYPE gpupool_build_info gauge"),
                                          std::string(R"(gpupool_build_info{version=")"),
                                          std::string(R"(controller_runtime_reconcile_total{controller="gpupool",result=)"),
                                          std::string(R"(workqueue_adds_total{name="gpupool"})")};
  std::string text;
  std::string missing;
  const auto all_shown = [&] {
    text = scrape(port);
    missing.clear();
    for (const auto& line : lines) {
      if (!has(text, line)) missing += "\n" + line;
    }
    return missing.empty();
  };
  wait_for(60s, all_shown, "the pool's and the controller's series on /metrics");
  EXPECT_TRUE(missing.empty()) << "missing:" << missing << "\n" << text;
  const auto promtool = find_promtool();
  ASSERT_TRUE(promtool) << "promtool not on PATH (Debian package prometheus)";
  const auto lint = promtool_check_metrics(*promtool, text);
  EXPECT_EQ(lint.exit_code, 0) << "promtool check metrics: " << lint.output << "\non:\n" << text;

  // The agent serves its build too.
  wait_for(60s, [&] { return metrics_port(agent_log) > 0; }, "the agent's metrics port in its log");
  EXPECT_TRUE(has(scrape(metrics_port(agent_log)), R"(gpupool_build_info{version=")"));

  // Deleted: the pool's series go.
  ASSERT_EQ(cluster().kubectl({"delete", "gpupool", pool, "--wait=false"}, &out), 0) << out;
  wait_for(60s, [&] {
    text = scrape(port);
    return !has(text, R"(pool=")" + pool + R"(")");
  }, "the deleted pool's series to leave /metrics");
  EXPECT_TRUE(has(text, "gpupool_build_info{")) << text;

  agent.signal(SIGTERM);
  proc.signal(SIGTERM);
  EXPECT_TRUE(agent.wait_until(std::chrono::steady_clock::now() + 20s)) << "the agent did not exit after SIGTERM";
  ASSERT_TRUE(proc.wait_until(std::chrono::steady_clock::now() + 20s)) << "the controller did not exit after SIGTERM";
  EXPECT_EQ(proc.exit_status(), 0);
}

TEST_F(ControllerObserveTest, BadKubeconfigIsAClearErrorNotACrash) {
  std::string dir = make_temp_dir("controller-bad");
  {
    std::ofstream(dir + "/kubeconfig") << "apiVersion: v1\nkind: Config\nclusters: 7\n";
  }
  std::string log = dir + "/controller.log";
  testenv::SpawnSpec spec;
  spec.path = GPUPOOL_CONTROLLER_BIN;
  spec.args = {"--kubeconfig", dir + "/kubeconfig"};
  spec.log_file = log;
  auto proc = testenv::Process::spawn(spec);
  ASSERT_TRUE(proc.wait_until(std::chrono::steady_clock::now() + 20s));
  EXPECT_EQ(proc.exit_status(), 1);
  std::ostringstream all;
  for (const auto& l : read_lines(log)) all << l << "\n";
  EXPECT_NE(all.str().find(dir + "/kubeconfig"), std::string::npos) << all.str();
  EXPECT_NE(all.str().find("clusters"), std::string::npos) << all.str();
  remove_tree(dir);
}

}  // namespace
}  // namespace gpupool::test
