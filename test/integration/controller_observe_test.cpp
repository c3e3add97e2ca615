// gpupool-controller as users run it: pointed at a kubeconfig, it connects,
// lists and watches nodes, logs them (as JSON with --log-format=json), and
// exits 0 on SIGTERM.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <csignal>
#include <fstream>
#include <sstream>

#include "gpupool/testenv/process.h"
#include "support/cluster_fixture.h"
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

// The "msg" of every JSON log line; fails the test on a line that is not JSON.
std::vector<std::string> json_messages(const std::string& path) {
  std::vector<std::string> out;
  for (const auto& line : read_lines(path)) {
    rapidjson::Document d;
    d.Parse(line.c_str());
    EXPECT_FALSE(d.HasParseError()) << "not a JSON log line: " << line;
    if (d.HasParseError() || !d.IsObject() || !d.HasMember("msg")) continue;
    EXPECT_TRUE(d.HasMember("ts") && d.HasMember("level")) << line;
    out.emplace_back(d["msg"].GetString());
  }
  return out;
}

bool logged(const std::string& path, const std::string& needle) {
  for (const auto& m : json_messages(path)) {
    if (m.find(needle) != std::string::npos) return true;
  }
  return false;
}

class ControllerObserveTest : public ClusterTest {};

TEST_F(ControllerObserveTest, ListsAndWatchesNodesThenStopsOnSigterm) {
  NodeSpec gpu;
  gpu.capacity = {{"nvidia.com/gpu", "8"}};
  create_kwok_nodes(cluster(), 1, gpu);

  std::string dir = make_temp_dir("controller");
  std::string log = dir + "/controller.log";
  testenv::SpawnSpec spec;
  spec.path = GPUPOOL_CONTROLLER_BIN;
  spec.args = {"--kubeconfig", cluster().kubeconfig_path(), "--log-format=json"};
  spec.log_file = log;
  auto proc = testenv::Process::spawn(spec);

  wait_for(60s, [&] { return logged(log, "node kwok-node-0 Ready nvidia.com/gpu=8"); }, "the listed node in the log");
  EXPECT_TRUE(logged(log, "connected: Kubernetes v1.37.2"));

  NodeSpec more = gpu;
  more.first_index = 1;
  create_kwok_nodes(cluster(), 1, more);
  wait_for(60s, [&] { return logged(log, "node ADDED kwok-node-1"); }, "the watched node in the log");

  proc.signal(SIGTERM);
  ASSERT_TRUE(proc.wait_until(std::chrono::steady_clock::now() + 20s)) << "the controller did not exit after SIGTERM";
  EXPECT_EQ(proc.exit_status(), 0);
  EXPECT_TRUE(logged(log, "shutting down"));
  for (const auto& m : json_messages(log)) {
    EXPECT_EQ(m.find(cluster().admin_token()), std::string::npos) << "a token was logged";
  }
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
