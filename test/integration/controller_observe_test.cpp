// gpupool-controller as users run it: pointed at a kubeconfig, it connects,
// lists and watches nodes, logs them (as JSON with --log-format=json), and
// exits 0 on SIGTERM.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <sstream>

#include "gpupool/testenv/process.h"
#include "support/cluster_fixture.h"
#include "support/json_log.h"
#include "support/kube_test_helpers.h"

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
  int port = 0;
  for (const auto& m : json_messages(log)) {
    if (auto pos = m.find("serving metrics on port "); pos != std::string::npos) port = std::stoi(m.substr(pos + 24));
  }
  ASSERT_GT(port, 0) << "the controller did not log its metrics port";
  std::string url = "http://127.0.0.1:" + std::to_string(port) + "/metrics";
  auto scrape = testenv::run_command("curl", {"-sf", url});
  ASSERT_EQ(scrape.status, 0) << scrape.err;
  for (const char* family : {"controller_runtime_reconcile_total{controller=\"node-inventory\",result=\"success\"}",
                             "controller_runtime_reconcile_time_seconds_bucket", "workqueue_adds_total{name=\"node-inventory\"}",
                             "workqueue_depth", "rest_client_requests_total{code=\"200\",method=\"GET\"",
                             "controller_runtime_max_concurrent_reconciles{controller=\"node-inventory\"} 1"}) {
    EXPECT_NE(scrape.out.find(family), std::string::npos) << "missing " << family;
  }
  auto lint = testenv::run_command("promtool", {"check", "metrics"}, scrape.out);
  EXPECT_EQ(lint.status, 0) << "promtool check metrics: " << lint.out << lint.err;

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
