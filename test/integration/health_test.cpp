// GPU health remediation end to end: the real control plane, kwok nodes, one
// simulated gpupool-agent per node (XIDs injected through its world file)
// and the gpupool-controller process.
//
// The recovery test waits out the policy's recoveryPeriod: 1m, the least the
// validation allows (GPUPolicy spec.health.recoveryPeriod, 1m..24h); nothing
// in the agent scales time. That minute is not spent idle: the XID storm and
// the Cordon rule scenarios run in it, each on nodes, a policy and a pool of
// its own, under the same controller (one controller per cluster: two would
// fight over the pools), and a watch notes when the node came back, so that
// a recovery before the period is caught however long they take.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "gpupool/kube/client.h"
#include "gpupool/kube/errors.h"
#include "gpupool/testenv/process.h"
#include "support/cluster_fixture.h"
#include "support/fleet_fixture.h"
#include "support/kube_test_helpers.h"
#include "support/recorders.h"

namespace gpupool::test {
namespace {

using namespace std::chrono_literals;

constexpr const char* kTaint = "gpupool.io/gpu-unhealthy";
constexpr const char* kRecord = "gpupool.io/health-remediation";

bool has_health_taint(const rapidjson::Value& node) {
  const auto* t = at(node, {"spec", "taints"});
  if (!t || !t->IsArray()) return false;
  return std::any_of(t->Begin(), t->End(), [](const rapidjson::Value& x) { return str(x, {"key"}) == kTaint; });
}

std::string record_of(const rapidjson::Value& node) {
  const auto* a = at(node, {"metadata", "annotations"});
  return a && a->HasMember(kRecord) && (*a)[kRecord].IsString() ? (*a)[kRecord].GetString() : "";
}

// Taken out for GPU health: our taint, or a cordon our annotation records.
bool taken_out(const rapidjson::Value& node) {
  return has_health_taint(node) || (flag(node, {"spec", "unschedulable"}) && record_of(node).rfind("Cordon ", 0) == 0);
}

std::string advertised(const rapidjson::Value& node, const char* resource, const char* field = "capacity") {
  return str(node, {"status", field, resource});
}

// Watches every Node change from the moment it is made and keeps, over the
// whole test, the most of `nodes` taken out for GPU health at once (the
// state after each event, in the order the API server sent them).
class RemediationRecorder {
 public:
  RemediationRecorder(kube::Client& client, std::set<std::string> nodes) : nodes_(std::move(nodes)) {
    thread_ = std::jthread([this, &client](std::stop_token stop) {
      watch_until_stopped(client, kNodes, stop, [&](kube::WatchEventType type, const rapidjson::Document& obj) {
        const std::string name = str(obj, {"metadata", "name"});
        if (!nodes_.count(name)) return;
        std::lock_guard lock(mu_);
        const bool out = type != kube::WatchEventType::Deleted && taken_out(obj);
        if (out_[name] && !out && !back_.count(name)) back_[name] = std::chrono::steady_clock::now();
        out_[name] = out;
        ++events_;
        int now = 0;
        std::string who;
        for (const auto& [n, o] : out_) {
          if (!o) continue;
          ++now;
          who += " " + n;
        }
        if (now > most_) {
          most_ = now;
          when_ = "at resourceVersion " + str(obj, {"metadata", "resourceVersion"}) + ":" + who;
        }
      });
    });
  }
  ~RemediationRecorder() {
    thread_.request_stop();
  }
  std::pair<int, std::string> most() {
    std::lock_guard lock(mu_);
    return {most_, when_};
  }
  int events() {
    std::lock_guard lock(mu_);
    return events_;
  }
  // When `node` was first seen back (taken out, then no longer), if it was.
  std::optional<std::chrono::steady_clock::time_point> back(const std::string& node) {
    std::lock_guard lock(mu_);
    auto it = back_.find(node);
    if (it == back_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::set<std::string> nodes_;
  std::mutex mu_;
  std::map<std::string, bool> out_;
  std::map<std::string, std::chrono::steady_clock::time_point> back_;
  int most_ = 0;
  int events_ = 0;
  std::string when_;
  std::jthread thread_;
};

// GET on a loopback HTTP port (the controller's /metrics); "" on failure.
std::string http_get(int port, const std::string& path) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string out;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    const std::string req = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (::write(fd, req.data(), req.size()) == static_cast<ssize_t>(req.size())) {
      char buf[4096];
      for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
    }
  }
  ::close(fd);
  return out;
}

class HealthTest : public FleetTest {
 protected:
  void TearDown() override {
    recorder_.reset();
    for (const auto& p : policies_) cluster().kubectl_result({"delete", "gpupolicy", p, "--ignore-not-found", "--wait=false"});
    FleetTest::TearDown();
  }

  // Like fleet(), with agents that read telemetry every half second.
  std::vector<std::string> health_fleet(int first, int count, const std::map<std::string, std::string>& labels,
                                        const std::string& world_yaml) {
    testenv::NodeSpec spec;
    spec.first_index = first;
    spec.labels = labels;
    auto names = create_kwok_nodes(cluster(), count, spec);
    // Telemetry often (the tests inject XIDs and temperatures), inventory less.
    agent_args_ = {"--inventory-interval=2", "--telemetry-interval=0.5"};
    for (const auto& n : names) {
      nodes_.push_back(n);
      world(n, world_yaml);
      start_agent(n);
    }
    return names;
  }

  // The controller with /metrics on a loopback port.
  void start_controller_with_metrics() {
    metrics_port_ = free_port();
    ASSERT_GT(metrics_port_, 0);
    testenv::SpawnSpec spec;
    spec.path = GPUPOOL_CONTROLLER_BIN;
    spec.args = {"--kubeconfig", cluster().kubeconfig_path(),
                 "--metrics-bind-address=127.0.0.1:" + std::to_string(metrics_port_),
                 "--health-probe-bind-address=0", "--log-format=json", "--agent-namespace", "gpupool-system"};
    spec.log_file = dir_ + "/controller.log";
    controller_ = std::make_unique<testenv::Process>(testenv::Process::spawn(spec));
  }

  void apply_policy(const std::string& name, const std::string& health_yaml) {
    const std::string path = dir_ + "/policy-" + name + ".yaml";
    std::ofstream(path) << "apiVersion: gpupool.io/v1alpha1\nkind: GPUPolicy\nmetadata:\n  name: " << name
                        << "\nspec:\n  health:\n" << health_yaml;
    std::string out;
    ASSERT_EQ(cluster().kubectl({"apply", "--server-side", "-f", path}, &out), 0) << out;
    policies_.insert(name);
  }

  // Events with `reason` about Node `node` (cluster-scoped: in "default").
  std::vector<std::string> node_events(const std::string& node, const std::string& reason) {
    std::vector<std::string> notes;
    auto events = client_->list(kube::ResourceRef{{"events.k8s.io", "v1", "events"}, "default", "", ""});
    for (const auto& e : events["items"].GetArray()) {
      if (str(e, {"regarding", "kind"}) == "Node" && str(e, {"regarding", "name"}) == node && str(e, {"reason"}) == reason) {
        notes.push_back(str(e, {"note"}));
      }
    }
    return notes;
  }

  // Every agent reports its GPUs judged by the pool's rules: spec.health
  // copied by the controller, the Healthy condition True.
  void wait_all_healthy(const std::vector<std::string>& names, std::chrono::milliseconds deadline) {
    for (const auto& n : names) {
      wait_for(deadline, [&] {
        auto g = get(kGpuNodes, n);
        return at(g, {"spec", "health"}) != nullptr && condition(g, "Healthy") == "True" &&
               condition(g, "Healthy", "reason") == "AllHealthy";
      }, "GPUNode " + n + " judged healthy by the pool's rules\nagent log:\n" + log_tail(n + ".log"));
    }
  }

  // Scenarios run while the recovery test waits (see the top of the file).
  void xid_storm_takes_out_no_more_nodes_than_the_limit_and_reports_the_rest();
  void cordon_rule_cordons_and_is_undone_when_the_rules_go_or_the_node_leaves_the_pool();

  std::set<std::string> policies_;
  std::unique_ptr<RemediationRecorder> recorder_;
  int metrics_port_ = 0;
};

const std::string kTwoGpus = "driverVersion: \"550.54.15\"\ngpus: [{model: a100-sxm4-80gb, count: 2}]\n";
const std::string kOneGpu = "driverVersion: \"550.54.15\"\ngpus: [{model: a100-sxm4-80gb, count: 1}]\n";

TEST_F(HealthTest, FatalXidTaintsTheNodeWithdrawsTheGpuAndRecoveryClearsIt) {
  const auto names = health_fleet(0, 2, {{"health-test", "xid"}}, kTwoGpus);
  const std::string bad = names[0], good = names[1];
  apply_policy("health-xid", "    xids: [{codes: [79], action: Taint}]\n    recoveryPeriod: 1m\n");
  apply_pool(pool_yaml("health-xid", "health-test: xid", "  policyRef: {name: health-xid}\n"));
  start_controller_with_metrics();
  wait_all_healthy(names, 120s);
  for (const auto& n : names) {
    wait_for(30s, [&] { return advertised(get(kNodes, n), "nvidia.com/gpu") == "2"; }, n + " advertising 2 GPUs");
  }
  recorder_ = std::make_unique<RemediationRecorder>(*client_, std::set<std::string>(names.begin(), names.end()));

  const auto injected = std::chrono::steady_clock::now();
  world(bad, kTwoGpus + "xids: [{gpu: 0, xid: 79}]\n");

  wait_for(60s, [&] { return has_health_taint(get(kNodes, bad)); },
           "the taint on " + bad + "\ncontroller log:\n" + log_tail("controller.log") + "\nagent log:\n" + log_tail(bad + ".log"));
  auto g = get(kGpuNodes, bad);
  const auto& gpus = g["status"]["gpus"];
  ASSERT_EQ(gpus.Size(), 2u);
  EXPECT_EQ(str(gpus[0], {"health"}), "Unhealthy");
  ASSERT_TRUE(gpus[0].HasMember("healthReasons") && gpus[0]["healthReasons"].Size() == 1) << kube::to_json(gpus[0]);
  const std::string reason = gpus[0]["healthReasons"][0].GetString();
  EXPECT_EQ(reason.rfind("XID 79 at ", 0), 0u) << reason;
  EXPECT_NE(reason.find("GPU has fallen off the bus; clears at "), std::string::npos) << reason;
  EXPECT_EQ(str(gpus[1], {"health"}), "Healthy") << "XIDs are per GPU";
  EXPECT_EQ(condition(g, "Healthy"), "False");
  EXPECT_EQ(condition(g, "Healthy", "reason"), "GPUUnhealthy");
  auto node = get(kNodes, bad);
  EXPECT_EQ(record_of(node).rfind("Taint ", 0), 0u) << record_of(node);
  EXPECT_FALSE(flag(node, {"spec", "unschedulable"})) << "a Taint rule does not cordon";

  // The unhealthy GPU is withdrawn; the other GPU of the node stays advertised.
  wait_for(30s, [&] {
    auto n = get(kNodes, bad);
    return advertised(n, "nvidia.com/gpu") == "1" && advertised(n, "nvidia.com/gpu", "allocatable") == "1";
  }, "one GPU of " + bad + " withdrawn\nagent log:\n" + log_tail(bad + ".log"));
  wait_for(30s, [&] { return !node_events(bad, "GPUUnhealthyTainted").empty(); }, "a GPUUnhealthyTainted Event on " + bad);
  EXPECT_NE(node_events(bad, "GPUUnhealthyTainted").front().find("XID 79"), std::string::npos);

  // The other node is untouched.
  auto other = get(kNodes, good);
  EXPECT_FALSE(taken_out(other));
  EXPECT_EQ(record_of(other), "");
  EXPECT_EQ(advertised(other, "nvidia.com/gpu"), "2");
  EXPECT_EQ(condition(get(kGpuNodes, good), "Healthy", "reason"), "AllHealthy");
  EXPECT_TRUE(wait_pool("health-xid", 30s, [](const rapidjson::Value& p) {
    return condition(p, "UnhealthyNodesHeldBack") == "False";
  }, "the pool reporting nothing held back"));

  const std::string metrics = http_get(metrics_port_, "/metrics");
  EXPECT_NE(metrics.find(R"(gpupool_health_remediations_total{pool="health-xid",action="taint"} 1)"), std::string::npos)
      << metrics.substr(0, 3000);

  // The other scenarios, while the recovery period runs.
  {
    SCOPED_TRACE("the XID storm scenario, run during the recovery period");
    xid_storm_takes_out_no_more_nodes_than_the_limit_and_reports_the_rest();
  }
  {
    SCOPED_TRACE("the Cordon rule scenario, run during the recovery period");
    cordon_rule_cordons_and_is_undone_when_the_rules_go_or_the_node_leaves_the_pool();
  }

  // Recovery: the XID counts for recoveryPeriod (1m) after it was seen; then
  // the agent reports the GPU Healthy and the controller clears the node.
  wait_for(150s, [&] { return !taken_out(get(kNodes, bad)); },
           "the taint cleared after the recovery period\ncontroller log:\n" + log_tail("controller.log"));
  // When it was cleared, as the watch saw it (the scenarios above may have
  // outlasted the period).
  std::optional<std::chrono::steady_clock::time_point> back;
  EXPECT_TRUE(testenv::wait_until([&] { return (back = recorder_->back(bad)).has_value(); }, 30s))
      << "the watch never saw " << bad << " come back";
  const auto elapsed = back.value_or(std::chrono::steady_clock::now()) - injected;
  EXPECT_GE(elapsed, 55s) << "cleared before the recovery period was over";
  node = get(kNodes, bad);
  EXPECT_EQ(record_of(node), "");
  EXPECT_FALSE(flag(node, {"spec", "unschedulable"}));
  g = get(kGpuNodes, bad);
  EXPECT_EQ(str(g["status"]["gpus"][0], {"health"}), "Healthy");
  EXPECT_EQ(condition(g, "Healthy"), "True");
  wait_for(30s, [&] { return advertised(get(kNodes, bad), "nvidia.com/gpu") == "2"; }, "the GPU advertised again");
  wait_for(30s, [&] { return !node_events(bad, "GPUHealthRecovered").empty(); }, "a GPUHealthRecovered Event on " + bad);

  const auto [most, when] = recorder_->most();
  EXPECT_EQ(most, 1) << "nodes taken out at once " << when << " (" << recorder_->events() << " Node events seen)";
  EXPECT_TRUE(node_events(good, "GPUUnhealthyTainted").empty());
}

// An XID storm across a pool of 10 takes out no more nodes than its limit
// (maxUnhealthyNodes 2) and reports the rest. Needs the controller running.
void HealthTest::xid_storm_takes_out_no_more_nodes_than_the_limit_and_reports_the_rest() {
  const auto names = health_fleet(10, 10, {{"health-test", "storm"}}, kOneGpu);
  // Watching before the pool and its rules exist (the controller already runs).
  RemediationRecorder recorder(*client_, std::set<std::string>(names.begin(), names.end()));
  apply_policy("health-storm",
               "    xids: [{codes: [79], action: Taint}]\n    recoveryPeriod: 10m\n    maxUnhealthyNodes: 2\n");
  apply_pool(pool_yaml("health-storm", "health-test: storm", "  policyRef: {name: health-storm}\n"));
  wait_all_healthy(names, 180s);

  for (const auto& n : names) world(n, kOneGpu + "xids: [{gpu: 0, xid: 79}]\n");

  // Every agent judges its GPU Unhealthy; two nodes are taken out and the
  // pool reports the other eight.
  for (const auto& n : names) {
    wait_for(90s, [&] { return condition(get(kGpuNodes, n), "Healthy") == "False"; },
             "GPUNode " + n + " Unhealthy\nagent log:\n" + log_tail(n + ".log"));
  }
  ASSERT_TRUE(wait_pool("health-storm", 60s, [](const rapidjson::Value& p) {
    return condition(p, "UnhealthyNodesHeldBack") == "True" &&
           condition(p, "UnhealthyNodesHeldBack", "message").find("2 of 10 nodes of pool health-storm taken out for GPU "
                                                                  "health (limit 2); held back: ") == 0;
  }, "the pool reporting 8 nodes held back"));
  EXPECT_EQ(condition(get(kPools, "health-storm"), "UnhealthyNodesHeldBack", "reason"), "MaxUnhealthyNodes");
  std::vector<std::string> out, held;
  for (const auto& n : names) (taken_out(get(kNodes, n)) ? out : held).push_back(n);
  EXPECT_EQ(out.size(), 2u);
  ASSERT_EQ(held.size(), 8u);
  for (const auto& n : held) {
    wait_for(30s, [&] { return !node_events(n, "GPUUnhealthyLimitReached").empty(); },
             "a GPUUnhealthyLimitReached Event on " + n);
    const auto notes = node_events(n, "GPUUnhealthyLimitReached");
    EXPECT_NE(notes.front().find("but 2 of 2 allowed nodes of pool health-storm are already remediated"),
              std::string::npos) << notes.front();
    EXPECT_EQ(advertised(get(kNodes, n), "nvidia.com/gpu"), "1") << n << ": held back, so still advertised";
  }
  for (const auto& n : out) {
    wait_for(30s, [&] { return advertised(get(kNodes, n), "nvidia.com/gpu").empty(); }, n + "'s GPU withdrawn");
  }

  const auto [most, when] = recorder.most();
  EXPECT_LE(most, 2) << "more than maxUnhealthyNodes nodes taken out " << when;
  EXPECT_EQ(most, 2) << "(" << recorder.events() << " Node events seen)";
}

// A Cordon rule cordons, and the cordon is undone when the rules go or the
// node leaves the pool. Needs the controller running.
void HealthTest::cordon_rule_cordons_and_is_undone_when_the_rules_go_or_the_node_leaves_the_pool() {
  const auto names = health_fleet(30, 1, {{"health-test", "cordon"}}, kOneGpu);
  const std::string n = names[0];
  const std::string rules = "    temperature: {warningCelsius: 85, criticalCelsius: 95, action: Cordon}\n    recoveryPeriod: 1m\n";
  apply_policy("health-cordon", rules);
  apply_pool(pool_yaml("health-cordon", "health-test: cordon", "  policyRef: {name: health-cordon}\n"));
  wait_all_healthy(names, 120s);
  world(n, kOneGpu + "temperatureCelsius: {0: 97}\n");

  auto cordoned = [&] {
    auto node = get(kNodes, n);
    return flag(node, {"spec", "unschedulable"}) && record_of(node).rfind("Cordon ", 0) == 0;
  };
  wait_for(60s, cordoned, "the node cordoned\ncontroller log:\n" + log_tail("controller.log"));
  EXPECT_FALSE(has_health_taint(get(kNodes, n))) << "a Cordon rule does not taint";
  auto g = get(kGpuNodes, n);
  EXPECT_EQ(str(g["status"]["gpus"][0], {"health"}), "Unhealthy");
  EXPECT_EQ(std::string(g["status"]["gpus"][0]["healthReasons"][0].GetString()), "temperature 97 °C above critical 95 °C");
  wait_for(30s, [&] { return advertised(get(kNodes, n), "nvidia.com/gpu").empty(); }, "the node's only GPU withdrawn");
  wait_for(30s, [&] { return !node_events(n, "GPUUnhealthyCordoned").empty(); }, "a GPUUnhealthyCordoned Event");

  // The policy's health rules removed: the node is uncordoned at once, the
  // GPU judged Healthy (no rules) and advertised again.
  std::string out;
  ASSERT_EQ(cluster().kubectl({"patch", "gpupolicy", "health-cordon", "--type=json", "-p",
                               R"([{"op":"remove","path":"/spec/health"}])"}, &out), 0) << out;
  wait_for(60s, [&] {
    auto node = get(kNodes, n);
    return !flag(node, {"spec", "unschedulable"}) && record_of(node).empty();
  }, "the node uncordoned");
  wait_for(30s, [&] { return !node_events(n, "GPUHealthRecovered").empty(); }, "a GPUHealthRecovered Event");
  wait_for(30s, [&] {
    auto gn = get(kGpuNodes, n);
    return condition(gn, "Healthy", "reason") == "NoHealthRules" && str(gn["status"]["gpus"][0], {"health"}) == "Healthy";
  }, "the GPU Healthy without rules");
  wait_for(30s, [&] { return advertised(get(kNodes, n), "nvidia.com/gpu") == "1"; }, "the GPU advertised again");

  // Rules back (still hot): cordoned again; the node leaves every pool: the
  // controller lifts the cordon it made.
  apply_policy("health-cordon", rules);
  wait_for(60s, cordoned, "the node cordoned again");
  ASSERT_EQ(cluster().kubectl({"label", "node", n, "health-test-"}, &out), 0) << out;
  wait_for(60s, [&] {
    auto node = get(kNodes, n);
    return !flag(node, {"spec", "unschedulable"}) && record_of(node).empty();
  }, "the node outside every pool uncordoned\ncontroller log:\n" + log_tail("controller.log"));
}

}  // namespace
}  // namespace gpupool::test
