// A fleet on the real control plane, for end-to-end tests of the
// controller: kwok nodes, one simulated agent per node (a process each),
// the controller as a process, and helpers to read what they wrote. Only for
// integration test binaries (they define GPUPOOL_AGENT_BIN and
// GPUPOOL_CONTROLLER_BIN); everything started is stopped in TearDown, also
// when a test fails, and the logs are kept then.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gpupool/kube/client.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/resource.h"
#include "gpupool/testenv/ports.h"
#include "gpupool/testenv/process.h"
#include "support/cluster_fixture.h"
#include "support/kube_test_helpers.h"

namespace gpupool::test {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

inline const kube::ResourceRef kGpuNodes{{"gpupool.io", "v1alpha1", "gpunodes"}, "", "", ""};
inline const kube::ResourceRef kPools{{"gpupool.io", "v1alpha1", "gpupools"}, "", "", ""};
inline const kube::ResourceRef kNodes{kube::core::nodes(), "", "", ""};

inline const rapidjson::Value* at(const rapidjson::Value& v, std::initializer_list<const char*> path) {
  const rapidjson::Value* cur = &v;
  for (const char* p : path) {
    if (!cur->IsObject() || !cur->HasMember(p)) return nullptr;
    cur = &(*cur)[p];
  }
  return cur;
}
inline std::string str(const rapidjson::Value& v, std::initializer_list<const char*> path) {
  const auto* x = at(v, path);
  return x && x->IsString() ? x->GetString() : "";
}
inline bool flag(const rapidjson::Value& v, std::initializer_list<const char*> path) {
  const auto* x = at(v, path);
  return x && x->IsBool() && x->GetBool();
}
inline std::string label(const rapidjson::Value& node, const char* key) {
  const auto* l = at(node, {"metadata", "labels"});
  return l && l->HasMember(key) ? (*l)[key].GetString() : "";
}
inline std::string condition(const rapidjson::Value& obj, const std::string& type, const char* field = "status") {
  const auto* c = at(obj, {"status", "conditions"});
  if (!c || !c->IsArray()) return "";
  for (const auto& x : c->GetArray()) {
    if (str(x, {"type"}) == type) return str(x, {field});
  }
  return "";
}
inline std::vector<std::string> taint_keys(const rapidjson::Value& node) {
  std::vector<std::string> out;
  const auto* t = at(node, {"spec", "taints"});
  if (t && t->IsArray()) {
    for (const auto& x : t->GetArray()) out.push_back(str(x, {"key"}) + "=" + str(x, {"value"}));
  }
  return out;
}

// A loopback port the kernel just handed out (released again for its user).
inline int free_port() { return testenv::pick_free_ports(1).at(0); }

class FleetTest : public ClusterTest {
 protected:
  static void SetUpTestSuite() {
    install_gpupool_crds(shared_cluster());
  }
  void SetUp() override {
    ClusterTest::SetUp();
    client_ = std::make_unique<kube::Client>(rest_config(cluster(), cluster().admin_token()));
    dir_ = make_temp_dir("pool");
  }
  void TearDown() override {
    controller_.reset();
    agents_.clear();
    if (webhooks_started_) {
      for (auto [kind, name] : {std::pair{"validatingwebhookconfiguration", "gpupool-validating-webhook"},
                                {"mutatingwebhookconfiguration", "gpupool-mutating-webhook"},
                                {"validatingadmissionpolicybinding", "gpupool-quota-gate"},
                                {"validatingadmissionpolicy", "gpupool-quota-gate"}}) {
        cluster().kubectl_result({"delete", kind, name, "--ignore-not-found"});
      }
    }
    for (const auto& p : pools_) {
      // Finalizers need the controller, which is gone: drop them.
      cluster().kubectl_result({"patch", "gpupool", p, "--type=merge", "-p", R"({"metadata":{"finalizers":null}})"});
      cluster().kubectl_result({"delete", "gpupool", p, "--ignore-not-found", "--wait=false"});
    }
    for (const auto& n : nodes_) cluster().kubectl_result({"delete", "gpunode", n, "--ignore-not-found", "--wait=false"});
    if (!nodes_.empty()) delete_nodes(cluster(), nodes_);
    if (HasFailure()) {
      std::cerr << "logs kept in " << dir_ << "\n";
    } else {
      remove_tree(dir_);
    }
    ClusterTest::TearDown();
  }

  // Appends `extra` to `args`; a flag given there (--name=value or --name
  // value) replaces the default "--name=value" in `args`.
  static void with_extra_args(std::vector<std::string>& args, const std::vector<std::string>& extra) {
    for (const auto& e : extra) {
      if (e.rfind("--", 0) != 0) continue;
      const std::string name = e.substr(0, e.find('='));
      std::erase_if(args, [&](const std::string& a) { return a.rfind(name + "=", 0) == 0; });
    }
    args.insert(args.end(), extra.begin(), extra.end());
  }

  // `count` kwok nodes labelled `labels`, each with an agent of `gpus` A100s
  // (and agent_args_ on its command line).
  std::vector<std::string> fleet(int first, int count, const std::map<std::string, std::string>& labels,
                                 const std::string& world_yaml = "driverVersion: \"550.54.15\"\ngpus: [{model: a100-sxm4-80gb, count: 2}]\n") {
    testenv::NodeSpec spec;
    spec.first_index = first;
    spec.labels = labels;
    auto names = create_kwok_nodes(cluster(), count, spec);
    for (const auto& n : names) {
      nodes_.push_back(n);
      world(n, world_yaml);
      start_agent(n);
    }
    for (const auto& n : names) {
      wait_for(60s, [&] {
        try {
          return at(get(kGpuNodes, n), {"status", "gpus"}) != nullptr;
        } catch (const kube::ApiError&) {
          return false;
        }
      }, "the agent of " + n + " reporting");
    }
    return names;
  }
  void world(const std::string& node, const std::string& yaml) {
    const std::string path = dir_ + "/" + node + ".yaml";
    std::ofstream(path + ".tmp") << yaml;
    static int bump = 0;
    fs::last_write_time(path + ".tmp", fs::file_time_type::clock::now() + std::chrono::seconds(++bump));
    fs::rename(path + ".tmp", path);
  }
  void start_agent(const std::string& node) {
    testenv::SpawnSpec spec;
    spec.path = GPUPOOL_AGENT_BIN;
    spec.args = {"--kubeconfig", components_kubeconfig(), "--node-name", node, "--backend", "simulated",
                 "--simulated-config", dir_ + "/" + node + ".yaml", "--simulated-state", dir_ + "/" + node + ".state.json",
                 "--metrics-bind-address=0", "--health-probe-bind-address=0", "--inventory-interval=0.5",
                 "--drain-poll-interval=0.3", "--lease-renew-interval=1", "--log-format=json"};
    with_extra_args(spec.args, agent_args_);
    spec.log_file = dir_ + "/" + node + ".log";
    agents_.push_back(std::make_unique<testenv::Process>(testenv::Process::spawn(spec)));
  }
  void start_controller(const std::vector<std::string>& extra_args = {}) {
    testenv::SpawnSpec spec;
    spec.path = GPUPOOL_CONTROLLER_BIN;
    spec.args = {"--kubeconfig", components_kubeconfig(), "--metrics-bind-address=0", "--health-probe-bind-address=0",
                 "--log-format=json", "--agent-namespace", "gpupool-system"};
    with_extra_args(spec.args, extra_args);
    spec.log_file = dir_ + "/controller.log";
    controller_ = std::make_unique<testenv::Process>(testenv::Process::spawn(spec));
  }
  // The controller serving its webhooks on a loopback port the API server calls
  // (--webhook-url, as envtest does). The webhook configurations it writes are
  // deleted in TearDown (nothing answers them once it is gone).
  void start_controller_with_webhook(const std::vector<std::string>& extra_args = {}) {
    const int port = free_port();
    ASSERT_GT(port, 0);
    const std::string address = "127.0.0.1:" + std::to_string(port);
    std::vector<std::string> args = {"--webhook-bind-address", address, "--webhook-url", "https://" + address};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    webhooks_started_ = true;
    start_controller(args);
  }
  void apply_pool(const std::string& yaml) {
    const std::string path = dir_ + "/pool.yaml";
    std::ofstream(path) << yaml;
    std::string out;
    ASSERT_EQ(cluster().kubectl({"apply", "--server-side", "-f", path}, &out), 0) << out;
    const auto name_at = yaml.find("name: ");
    pools_.insert(yaml.substr(name_at + 6, yaml.find('\n', name_at) - name_at - 6));
  }
  rapidjson::Document get(const kube::ResourceRef& ref, const std::string& name) { return client_->get(ref.with_name(name)); }
  // A log of this test, whole: what to search (a line can scroll out of the tail).
  std::string log_text(const std::string& file) {
    std::ifstream in(dir_ + "/" + file);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Its last 5,000 characters: what to show in a failure message.
  std::string log_tail(const std::string& file) {
    const std::string all = log_text(file);
    return all.substr(all.size() > 5000 ? all.size() - 5000 : 0);
  }
  // Waits for `cond` on the pool; on timeout shows it and the controller's log.
  [[nodiscard]] bool wait_pool(const std::string& pool, std::chrono::milliseconds deadline,
                               const std::function<bool(const rapidjson::Value&)>& cond, const std::string& what) {
    std::string last;
    const bool ok = testenv::wait_until([&] {
      try {
        auto p = get(kPools, pool);
        last = p.HasMember("status") ? kube::to_json(p["status"]) : "(no status)";
        return cond(p);
      } catch (const std::exception& e) {
        last = e.what();
        return false;
      }
    }, deadline);
    if (!ok) {
      ADD_FAILURE() << "timed out waiting for " << what << "\npool status: " << last << "\ncontroller log:\n"
                    << log_tail("controller.log");
    }
    return ok;
  }
  std::string pool_yaml(const std::string& name, const std::string& selector_label, const std::string& extra) {
    return "apiVersion: gpupool.io/v1alpha1\nkind: GPUPool\nmetadata:\n  name: " + name +
           "\nspec:\n  nodeSelector:\n    matchLabels:\n      " + selector_label + "\n" + extra;
  }

  // The kubeconfig the agents and the controller get: components_kubeconfig_
  // when set (e.g. one pointing at a fault proxy), else the admin's.
  std::string components_kubeconfig() { return components_kubeconfig_.empty() ? cluster().kubeconfig_path() : components_kubeconfig_; }

  std::unique_ptr<kube::Client> client_;
  std::string components_kubeconfig_;
  std::string dir_;
  std::vector<std::string> nodes_;
  std::set<std::string> pools_;
  std::vector<std::unique_ptr<testenv::Process>> agents_;
  std::unique_ptr<testenv::Process> controller_;
  bool webhooks_started_ = false;
  std::vector<std::string> agent_args_;  // more flags for the agents fleet() starts next
};

}  // namespace gpupool::test
