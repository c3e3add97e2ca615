// gpupool-agent as it runs on a node: one real agent process per kwok node,
// simulated GPUs, the real control plane. Each test uses its own nodes.
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "gpupool/kube/client.h"
#include "gpupool/kube/errors.h"
#include "gpupool/testenv/process.h"
#include "support/cluster_fixture.h"
#include "support/kube_test_helpers.h"

namespace gpupool::test {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

const kube::ResourceRef kGpuNodes{{"gpupool.io", "v1alpha1", "gpunodes"}, "", "", ""};
const kube::ResourceRef kNodes{kube::core::nodes(), "", "", ""};

std::string str(const rapidjson::Value& v, std::initializer_list<const char*> path) { return kube::string_at(v, path); }

const rapidjson::Value* member(const rapidjson::Value& v, std::initializer_list<const char*> path) {
  const rapidjson::Value* cur = &v;
  for (const char* p : path) {
    if (!cur->IsObject() || !cur->HasMember(p)) return nullptr;
    cur = &(*cur)[p];
  }
  return cur;
}

// The operation of `type` in a GPUNode's status, as {phase, reason, message}.
struct Op {
  std::string phase, reason, message;
};
Op operation(const rapidjson::Value& gpunode, const std::string& type) {
  const auto* ops = member(gpunode, {"status", "operations"});
  if (ops == nullptr || !ops->IsArray()) return {};
  for (const auto& o : ops->GetArray()) {
    if (str(o, {"type"}) == type) return {str(o, {"phase"}), str(o, {"reason"}), str(o, {"message"})};
  }
  return {};
}

std::string label(const rapidjson::Value& node, const char* key) {
  const auto* labels = member(node, {"metadata", "labels"});
  return labels && labels->HasMember(key) ? (*labels)[key].GetString() : "";
}

std::string capacity(const rapidjson::Value& node, const char* resource) {
  const auto* cap = member(node, {"status", "capacity"});
  return cap && cap->HasMember(resource) ? (*cap)[resource].GetString() : "";
}

bool unschedulable(const rapidjson::Value& node) {
  const auto* u = member(node, {"spec", "unschedulable"});
  return u && u->IsBool() && u->GetBool();
}

bool has_annotation(const rapidjson::Value& node, const char* key) {
  const auto* a = member(node, {"metadata", "annotations"});
  return a && a->HasMember(key);
}

// Every pod of a namespace that ever got a deletionTimestamp during the test.
class DeletionRecorder {
 public:
  DeletionRecorder(kube::Client& client, const std::string& ns) {
    thread_ = std::jthread([this, &client, ns](std::stop_token stop) {
      kube::ListOptions lo;
      lo.allow_watch_bookmarks = true;
      lo.resource_version = "0";
      while (!stop.stop_requested()) {
        try {
          client.watch(kube::ResourceRef{kube::core::pods(), ns, "", ""}, lo, [this](const kube::WatchEvent& e) {
            if (e.type == kube::WatchEventType::Bookmark || e.type == kube::WatchEventType::Error) return true;
            const auto obj = kube::parse_json(e.object);
            const std::string name = kube::string_at(obj, {"metadata", "name"});
            std::lock_guard lock(mu_);
            seen_.insert(name);
            if (obj.HasMember("metadata") && obj["metadata"].HasMember("deletionTimestamp")) deleted_.insert(name);
            if (e.type == kube::WatchEventType::Deleted) deleted_.insert(name);
            return true;
          }, stop);
        } catch (const std::exception&) {
          lo.resource_version = "0";
        }
      }
    });
  }
  std::set<std::string> deleted() const {
    std::lock_guard lock(mu_);
    return deleted_;
  }
  bool seen(const std::string& name) const {
    std::lock_guard lock(mu_);
    return seen_.count(name) > 0;
  }

 private:
  mutable std::mutex mu_;
  std::set<std::string> deleted_, seen_;
  std::jthread thread_;
};

class AgentTest : public ClusterTest {
 protected:
  static void SetUpTestSuite() {
    install_gpupool_crds(shared_cluster());
  }

  void SetUp() override {
    ClusterTest::SetUp();
    client_ = std::make_unique<kube::Client>(rest_config(cluster(), cluster().admin_token()));
    dir_ = make_temp_dir("agent");
  }
  void TearDown() override {
    agents_.clear();  // kills the agents
    for (const auto& n : nodes_) {
      cluster().kubectl_result({"delete", "gpunode", n, "--ignore-not-found", "--wait=false"});
    }
    if (!nodes_.empty()) delete_nodes(cluster(), nodes_);
    remove_tree(dir_);
    ClusterTest::TearDown();
  }

  // A kwok node without GPU capacity: the agent advertises what it finds.
  std::string make_node(int index) {
    NodeSpec spec;
    spec.first_index = index;
    auto names = create_kwok_nodes(cluster(), 1, spec);
    nodes_.push_back(names.at(0));
    return names.at(0);
  }
  std::string world(const std::string& node, const std::string& yaml) {
    const std::string path = dir_ + "/" + node + ".yaml";
    const std::string tmp = path + ".tmp";
    std::ofstream(tmp) << yaml;
    // A new mtime each time, even within one clock tick.
    static int bump = 0;
    fs::last_write_time(tmp, fs::file_time_type::clock::now() + std::chrono::seconds(++bump));
    fs::rename(tmp, path);
    return path;
  }
  testenv::Process& start_agent(const std::string& node, const std::vector<std::string>& extra = {}) {
    testenv::SpawnSpec spec;
    spec.path = GPUPOOL_AGENT_BIN;
    spec.args = {"--kubeconfig", cluster().kubeconfig_path(), "--node-name", node, "--backend", "simulated",
                 "--simulated-config", dir_ + "/" + node + ".yaml", "--simulated-state", dir_ + "/" + node + ".state.json",
                 "--metrics-bind-address=0", "--health-probe-bind-address=0", "--inventory-interval=0.5",
                 "--drain-poll-interval=0.3", "--lease-renew-interval=1", "--log-format=json", "--log-level=debug"};
    spec.args.insert(spec.args.end(), extra.begin(), extra.end());
    spec.log_file = dir_ + "/" + node + ".log";
    agents_.push_back(std::make_unique<testenv::Process>(testenv::Process::spawn(spec)));
    return *agents_.back();
  }
  rapidjson::Document gpunode(const std::string& node) { return client_->get(kGpuNodes.with_name(node)); }
  rapidjson::Document node(const std::string& name) { return client_->get(kNodes.with_name(name)); }
  void patch_spec(const std::string& node, const std::string& spec_json) {
    client_->patch(kGpuNodes.with_name(node), kube::PatchType::MergePatch, R"({"spec":)" + spec_json + "}");
  }
  std::string log_of(const std::string& node) {
    std::ifstream in(dir_ + "/" + node + ".log");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Waits for `cond` on the GPUNode; on timeout the failure shows the object and the agent's log tail.
  void wait_gpunode(const std::string& node, std::chrono::milliseconds deadline,
                    const std::function<bool(const rapidjson::Value&)>& cond, const std::string& what) {
    std::string last;
    bool ok = testenv::wait_until([&] {
      try {
        auto g = gpunode(node);
        last = kube::to_json(g);
        return cond(g);
      } catch (const std::exception& e) {
        last = e.what();
        return false;
      }
    }, deadline);
    if (!ok) {
      std::string log = log_of(node);
      FAIL() << "timed out waiting for " << what << "\nGPUNode: " << last << "\nagent log tail:\n"
             << log.substr(log.size() > 6000 ? log.size() - 6000 : 0);
    }
  }
  void wait_node(const std::string& name, std::chrono::milliseconds deadline,
                 const std::function<bool(const rapidjson::Value&)>& cond, const std::string& what) {
    std::string last;
    bool ok = testenv::wait_until([&] {
      auto n = node(name);
      last = kube::to_json(n["metadata"]) + " " + (n.HasMember("spec") ? kube::to_json(n["spec"]) : "") + " " +
             (n.HasMember("status") && n["status"].HasMember("capacity") ? kube::to_json(n["status"]["capacity"]) : "");
      return cond(n);
    }, deadline);
    if (!ok) {
      std::string log = log_of(name);
      FAIL() << "timed out waiting for " << what << "\nNode: " << last << "\nagent log tail:\n"
             << log.substr(log.size() > 6000 ? log.size() - 6000 : 0);
    }
  }
  // A ReplicaSet of one pod pinned to `node`, asking for `resources` (JSON map; "" for none).
  void replica_set(const std::string& name, const std::string& node, const std::string& resources,
                   const std::string& labels = "") {
    std::string res = resources.empty() ? "" : R"(,"resources":{"limits":)" + resources + "}";
    std::string body = R"({"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":")" + name +
                       R"("},"spec":{"replicas":1,"selector":{"matchLabels":{"app":")" + name +
                       R"("}},"template":{"metadata":{"labels":{"app":")" + name + "\"" + labels +
                       R"(}},"spec":{"nodeSelector":{"kubernetes.io/hostname":")" + node +
                       R"("},"tolerations":[{"operator":"Exists"}],"containers":[{"name":"c","image":"busybox")" + res + "}]}}}}";
    client_->create(kube::ResourceRef{{"apps", "v1", "replicasets"}, ns(), "", ""}, body);
  }
  std::vector<std::string> running_pods(const std::string& app) {
    std::vector<std::string> out;
    kube::ListOptions lo;
    lo.label_selector = "app=" + app;
    auto list = client_->list(kube::ResourceRef{kube::core::pods(), ns(), "", ""}, lo);
    for (const auto& p : list["items"].GetArray()) {
      if (str(p, {"status", "phase"}) == "Running" && !p["metadata"].HasMember("deletionTimestamp")) {
        out.push_back(str(p, {"metadata", "name"}));
      }
    }
    return out;
  }

  std::unique_ptr<kube::Client> client_;
  std::string dir_;
  std::vector<std::string> nodes_;
  std::vector<std::unique_ptr<testenv::Process>> agents_;
};

TEST_F(AgentTest, ReportsInventoryLabelsAndLeaseAndFollowsGpuRemoval) {
  const std::string n = make_node(0);
  world(n, "driverVersion: \"550.54.15\"\ngpus: [{model: a100-sxm4-80gb, count: 2}]\n");
  // A label of the GPU Operator's that the agent must never touch.
  client_->patch(kNodes.with_name(n), kube::PatchType::MergePatch,
                 R"({"metadata":{"labels":{"nvidia.com/gpu.deploy.driver":"false"}}})");
  start_agent(n);

  wait_gpunode(n, 60s, [](const rapidjson::Value& g) {
    const auto* gpus = member(g, {"status", "gpus"});
    return gpus && gpus->IsArray() && gpus->Size() == 2 && member(g, {"status", "lastHeartbeatTime"});
  }, "status with 2 GPUs");
  auto g = gpunode(n);
  EXPECT_EQ(str(g, {"spec", "nodeName"}), n);
  EXPECT_EQ(g["status"]["gpuCount"].GetInt(), 2);
  EXPECT_EQ(str(g, {"status", "driverVersion"}), "550.54.15");
  const auto& gpu0 = g["status"]["gpus"][0];
  EXPECT_EQ(str(gpu0, {"catalogID"}), "a100-sxm4-80gb");
  EXPECT_EQ(str(gpu0, {"model"}), "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(str(gpu0, {"partition", "migMode"}), "Disabled");
  EXPECT_EQ(gpu0["memoryMiB"].GetInt64(), 81920);
  ASSERT_TRUE(member(g, {"status", "interconnect"}));
  ASSERT_EQ(g["status"]["interconnect"].Size(), 1u);
  EXPECT_EQ(str(g["status"]["interconnect"][0], {"type"}), "NVLink");
  EXPECT_EQ(g["status"]["interconnect"][0]["links"].GetInt(), 12);

  wait_node(n, 60s, [](const rapidjson::Value& nd) {
    return label(nd, "nvidia.com/gpu.count") == "2" && capacity(nd, "nvidia.com/gpu") == "2";
  }, "GFD labels and advertised GPUs");
  auto nd = node(n);
  EXPECT_EQ(label(nd, "nvidia.com/gpu.present"), "true");
  EXPECT_EQ(label(nd, "nvidia.com/gpu.product"), "NVIDIA-A100-SXM4-80GB");
  EXPECT_EQ(label(nd, "nvidia.com/gpu.memory"), "81920");
  EXPECT_EQ(label(nd, "nvidia.com/gpu.family"), "ampere");
  EXPECT_EQ(label(nd, "nvidia.com/mig.capable"), "true");
  EXPECT_EQ(label(nd, "nvidia.com/cuda.driver-version.major"), "550");
  EXPECT_EQ(label(nd, "nvidia.com/cuda.driver.major"), "550");
  EXPECT_EQ(label(nd, "gpupool.io/gpu-model"), "a100-sxm4-80gb");
  EXPECT_EQ(label(nd, "nvidia.com/device-plugin.config"), "gpupool-mixed-exclusive");

  // The Lease heartbeat, in the agent's namespace (never kube-node-lease).
  auto lease = client_->get(kube::ResourceRef{{"coordination.k8s.io", "v1", "leases"}, "gpupool-system",
                                              "gpupool-agent-" + n, ""});
  EXPECT_EQ(str(lease, {"spec", "holderIdentity"}), n);
  const std::string renewed = str(lease, {"spec", "renewTime"});
  wait_for(30s, [&] {
    return str(client_->get(kube::ResourceRef{{"coordination.k8s.io", "v1", "leases"}, "gpupool-system",
                                              "gpupool-agent-" + n, ""}),
               {"spec", "renewTime"}) != renewed;
  }, "the Lease renewed");

  // One GPU pulled out of the simulation: labels and capacity follow.
  world(n, "driverVersion: \"550.54.15\"\ngpus: [{model: a100-sxm4-80gb, count: 1}]\n");
  wait_node(n, 60s, [](const rapidjson::Value& x) {
    return label(x, "nvidia.com/gpu.count") == "1" && capacity(x, "nvidia.com/gpu") == "1";
  }, "one GPU left");
  // All gone: every label the agent owns disappears, others stay.
  world(n, "gpus: []\n");
  wait_node(n, 60s, [](const rapidjson::Value& x) {
    return label(x, "nvidia.com/gpu.present").empty() && label(x, "gpupool.io/gpu-model").empty() &&
           label(x, "nvidia.com/gpu.product").empty() && capacity(x, "nvidia.com/gpu").empty();
  }, "GPU labels and capacity removed");
  EXPECT_EQ(label(node(n), "nvidia.com/gpu.deploy.driver"), "false");
  wait_gpunode(n, 30s, [](const rapidjson::Value& x) {
    return member(x, {"status", "lastHeartbeatTime"}) && !member(x, {"status", "gpuCount"}) && !member(x, {"status", "gpus"});
  }, "no GPUs in the status");
}

TEST_F(AgentTest, MigLayoutWaitsForDisruptionThenDrainsOnlyGpuPodsAndAdvertises) {
  const std::string n = make_node(1);
  world(n, "gpus: [{model: a100-sxm4-80gb, count: 1}]\n");
  start_agent(n);
  wait_node(n, 60s, [](const rapidjson::Value& x) { return capacity(x, "nvidia.com/gpu") == "1"; }, "the GPU advertised");
  DeletionRecorder recorder(*client_, ns());
  replica_set("gpu-job", n, R"({"nvidia.com/gpu":"1"})");
  replica_set("cpu-job", n, "");
  wait_for(90s, [&] { return running_pods("gpu-job").size() == 1 && running_pods("cpu-job").size() == 1; },
           "both pods running on the node");
  const std::string cpu_pod = running_pods("cpu-job").at(0);

  patch_spec(n, R"({"partitioning":{"strategy":"mixed","mig":[{"index":0,"enabled":true,"instances":[{"profile":"3g.40gb"},{"profile":"3g.40gb"}]}]}})");
  wait_gpunode(n, 60s, [](const rapidjson::Value& g) {
    auto op = operation(g, "Partition");
    return op.phase == "Pending" && op.reason == "WaitingForDisruption";
  }, "the change waiting for disruptionAllowed");
  EXPECT_EQ(str(gpunode(n)["status"]["gpus"][0], {"partition", "migMode"}), "Disabled");
  EXPECT_FALSE(unschedulable(node(n)));
  EXPECT_TRUE(recorder.deleted().empty()) << "nothing may be evicted before disruptionAllowed";

  patch_spec(n, R"({"disruptionAllowed":true})");
  // The Drain operation ends with the uncordon, which may take one more pass
  // (kwok's heartbeat can move the Node between the cordon and it).
  wait_gpunode(n, 90s, [](const rapidjson::Value& g) {
    return operation(g, "Partition").phase == "Succeeded" && operation(g, "Drain").phase == "Succeeded";
  }, "the layout applied and the drain over");
  auto g = gpunode(n);
  const auto& part = g["status"]["gpus"][0]["partition"];
  EXPECT_EQ(str(part, {"migMode"}), "Enabled");
  ASSERT_EQ(part["instances"].Size(), 2u);
  EXPECT_EQ(str(part["instances"][0], {"profile"}), "3g.40gb");
  EXPECT_EQ(part["instances"][0]["memoryMiB"].GetInt64(), 40192) << "the size the GPU reports";
  EXPECT_EQ(operation(g, "Drain").reason, "Uncordoned");
  EXPECT_FALSE(unschedulable(node(n))) << "the drain ended with the Node still cordoned";
  wait_node(n, 30s, [](const rapidjson::Value& x) {
    return !unschedulable(x) && !has_annotation(x, "gpupool.io/pre-drain-unschedulable") &&
           capacity(x, "nvidia.com/mig-3g.40gb") == "2" && capacity(x, "nvidia.com/gpu").empty() &&
           label(x, "nvidia.com/mig-3g.40gb.count") == "2";
  }, "uncordoned, advertising 2 x nvidia.com/mig-3g.40gb");

  auto deleted = recorder.deleted();
  EXPECT_EQ(deleted.count(cpu_pod), 0u) << "a pod using no GPU was evicted";
  bool gpu_pod_evicted = false;
  for (const auto& d : deleted) gpu_pod_evicted = gpu_pod_evicted || d.rfind("gpu-job-", 0) == 0;
  EXPECT_TRUE(gpu_pod_evicted) << "the GPU pod was not evicted";

  // kube-scheduler places a pod asking for the new MIG device on this node.
  replica_set("mig-job", n, R"({"nvidia.com/mig-3g.40gb":"1"})");
  wait_for(90s, [&] { return running_pods("mig-job").size() == 1; }, "a MIG pod scheduled and running on the node");
}

TEST_F(AgentTest, PodDisruptionBudgetHoldsTheDrainAndIsNamed) {
  const std::string n = make_node(2);
  world(n, "gpus: [{model: a100-sxm4-80gb, count: 1}]\n");
  start_agent(n);
  wait_node(n, 60s, [](const rapidjson::Value& x) { return capacity(x, "nvidia.com/gpu") == "1"; }, "the GPU advertised");
  replica_set("guarded", n, R"({"nvidia.com/gpu":"1"})");
  client_->create(kube::ResourceRef{{"policy", "v1", "poddisruptionbudgets"}, ns(), "", ""},
                  R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"guard"},
                      "spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"guarded"}}}})");
  wait_for(90s, [&] {
    auto pdb = client_->get(kube::ResourceRef{{"policy", "v1", "poddisruptionbudgets"}, ns(), "guard", ""});
    return member(pdb, {"status", "currentHealthy"}) && pdb["status"]["currentHealthy"].GetInt() == 1;
  }, "the PDB counting the pod");
  const std::string pod = running_pods("guarded").at(0);

  patch_spec(n, R"({"disruptionAllowed":true,"drain":{"timeout":"10m"},"partitioning":{"mig":[{"index":0,"enabled":true,"instances":[{"profile":"7g.80gb"}]}]}})");
  wait_gpunode(n, 60s, [&](const rapidjson::Value& g) {
    auto op = operation(g, "Drain");
    return op.phase == "InProgress" && op.reason == "PodDisruptionBudget" && op.message.find(pod) != std::string::npos &&
           op.message.find("guard") != std::string::npos;
  }, "the drain held by the PDB, naming the pod and the budget");
  EXPECT_TRUE(unschedulable(node(n)));
  EXPECT_EQ(str(gpunode(n)["status"]["gpus"][0], {"partition", "migMode"}), "Disabled") << "MIG changed under a running pod";
  EXPECT_EQ(running_pods("guarded"), std::vector<std::string>{pod});

  // The budget lifted, the drain finishes and the change goes through.
  client_->remove(kube::ResourceRef{{"policy", "v1", "poddisruptionbudgets"}, ns(), "guard", ""});
  wait_gpunode(n, 90s, [](const rapidjson::Value& g) { return operation(g, "Partition").phase == "Succeeded"; },
               "the layout applied after the PDB was removed");
  wait_node(n, 30s, [](const rapidjson::Value& x) { return !unschedulable(x); }, "uncordoned");
}

TEST_F(AgentTest, FailedDriverInstallLeavesTheNodeCordonedOnlyIfAsked) {
  for (bool cordon_on_failure : {true, false}) {
    SCOPED_TRACE(cordon_on_failure ? "cordonOnFailure true" : "cordonOnFailure false");
    const std::string n = make_node(cordon_on_failure ? 3 : 4);
    world(n, "driverVersion: \"550.54.15\"\ngpus: [{model: h100-sxm5-80gb, count: 1}]\n"
             "install: {seconds: 0.2, fail: \"nvidia-installer: kernel module build failed (gcc mismatch)\"}\n");
    start_agent(n);
    wait_gpunode(n, 60s, [](const rapidjson::Value& g) { return member(g, {"status", "gpus"}) != nullptr; }, "reported");
    patch_spec(n, std::string(R"({"disruptionAllowed":true,"cordonOnFailure":)") + (cordon_on_failure ? "true" : "false") +
                      R"(,"driver":{"version":"570.133.20","installer":{"kind":"package"}}})");
    wait_gpunode(n, 60s, [](const rapidjson::Value& g) { return operation(g, "Driver").phase == "Failed"; },
                 "the driver operation failed");
    auto op = operation(gpunode(n), "Driver");
    EXPECT_EQ(op.reason, "InstallFailed");
    EXPECT_NE(op.message.find("kernel module build failed"), std::string::npos) << op.message;
    EXPECT_EQ(str(gpunode(n), {"status", "driverVersion"}), "550.54.15");
    wait_node(n, 30s, [&](const rapidjson::Value& x) { return unschedulable(x) == cordon_on_failure; },
              cordon_on_failure ? "left cordoned" : "uncordoned");
    // Not retried for the same spec: still failed, still as cordoned, a while later.
    wait_gpunode(n, 10s, [](const rapidjson::Value& g) {
      const auto* c = member(g, {"status", "conditions"});
      if (!c) return false;
      for (const auto& x : c->GetArray()) {
        if (str(x, {"type"}) == "Ready") return str(x, {"status"}) == "False" && str(x, {"reason"}) == "InstallFailed";
      }
      return false;
    }, "Ready False with the reason");
    EXPECT_EQ(unschedulable(node(n)), cordon_on_failure);
  }
}

TEST_F(AgentTest, KilledInTheMiddleOfAMigChangeFinishesAfterRestart) {
  const std::string n = make_node(5);
  world(n, "gpus: [{model: a100-sxm4-80gb, count: 1}]\nmigOperationSeconds: 0.7\n");
  auto* agent = &start_agent(n);
  wait_gpunode(n, 60s, [](const rapidjson::Value& g) { return member(g, {"status", "gpus"}) != nullptr; }, "reported");
  patch_spec(n, R"({"disruptionAllowed":true,"partitioning":{"mig":[{"index":0,"enabled":true,"instances":[
      {"profile":"1g.10gb"},{"profile":"1g.10gb"},{"profile":"1g.10gb"},{"profile":"1g.10gb"},
      {"profile":"1g.10gb"},{"profile":"1g.10gb"},{"profile":"1g.10gb"}]}]}})");
  // The GPUs' own state says when the change is half done.
  const std::string state = dir_ + "/" + n + ".state.json";
  wait_for(60s, [&] {
    std::ifstream in(state);
    std::stringstream s;
    s << in.rdbuf();
    auto d = kube::parse_json(s.str().empty() ? "{}" : s.str());
    if (!d.HasMember("gpus")) return false;
    for (const auto& gpu : d["gpus"].GetObject()) {
      const auto count = gpu.value["instances"].Size();
      if (count >= 2 && count < 7) return true;
    }
    return false;
  }, "the MIG change half done");
  agent->signal(SIGKILL);
  ASSERT_TRUE(agent->wait_until(std::chrono::steady_clock::now() + 10s));
  EXPECT_TRUE(unschedulable(node(n))) << "the node should be cordoned while its GPUs change";

  start_agent(n);
  wait_gpunode(n, 90s, [](const rapidjson::Value& g) {
    const auto* inst = member(g["status"]["gpus"][0], {"partition", "instances"});
    return operation(g, "Partition").phase == "Succeeded" && inst && inst->Size() == 7;
  }, "the layout finished by the restarted agent");
  wait_node(n, 30s, [](const rapidjson::Value& x) {
    return !unschedulable(x) && capacity(x, "nvidia.com/mig-1g.10gb") == "7";
  }, "uncordoned and advertising 7 x 1g.10gb");
}

TEST_F(AgentTest, AlreadyCordonedNodeStaysCordonedAfterUpgrade) {
  const std::string n = make_node(6);
  world(n, "driverVersion: \"550.54.15\"\ngpus: [{model: l4-24gb, count: 2}]\ninstall: {seconds: 0.3}\n");
  std::string out;
  ASSERT_EQ(cluster().kubectl({"cordon", n}, &out), 0) << out;
  start_agent(n);
  wait_gpunode(n, 60s, [](const rapidjson::Value& g) { return member(g, {"status", "gpus"}) != nullptr; }, "reported");
  patch_spec(n, R"({"disruptionAllowed":true,"driver":{"version":"570.133.20","installer":{"kind":"runfile"}}})");
  wait_gpunode(n, 60s, [](const rapidjson::Value& g) {
    return operation(g, "Driver").phase == "Succeeded" && str(g, {"status", "driverVersion"}) == "570.133.20";
  }, "the driver upgraded");
  wait_node(n, 30s, [](const rapidjson::Value& x) {
    return !has_annotation(x, "gpupool.io/pre-drain-unschedulable") && label(x, "nvidia.com/cuda.driver-version.major") == "570";
  }, "the drain finished and labels updated");
  EXPECT_TRUE(unschedulable(node(n))) << "the agent uncordoned a node an administrator had cordoned";
}

TEST_F(AgentTest, UnsatisfiableLayoutFailsAndChangesNothing) {
  const std::string n = make_node(7);
  world(n, "gpus: [{model: a100-sxm4-80gb, count: 1}]\n");
  start_agent(n);
  wait_gpunode(n, 60s, [](const rapidjson::Value& g) { return member(g, {"status", "gpus"}) != nullptr; }, "reported");
  patch_spec(n, R"({"disruptionAllowed":true,"partitioning":{"mig":[{"index":0,"enabled":true,"instances":[{"profile":"3g.40gb"}]},{"index":3,"enabled":true}]}})");
  wait_gpunode(n, 60s, [](const rapidjson::Value& g) {
    auto op = operation(g, "Partition");
    return op.phase == "Failed" && op.reason == "Unsatisfiable" &&
           op.message.find("GPU 3 does not exist (the node has 1 GPU)") != std::string::npos;
  }, "Unsatisfiable naming the GPU");
  EXPECT_EQ(str(gpunode(n)["status"]["gpus"][0], {"partition", "migMode"}), "Disabled");
  EXPECT_FALSE(unschedulable(node(n)));
}

TEST_F(AgentTest, TimeSlicingChangesWithoutDrainingTheGpuPods) {
  const std::string n = make_node(7);
  world(n, "gpus: [{model: a100-sxm4-80gb, count: 1}]\n");
  start_agent(n);
  wait_node(n, 60s, [](const rapidjson::Value& x) { return capacity(x, "nvidia.com/gpu") == "1"; }, "the GPU advertised");
  DeletionRecorder recorder(*client_, ns());
  replica_set("gpu-job", n, R"({"nvidia.com/gpu":"1"})");
  wait_for(90s, [&] { return running_pods("gpu-job").size() == 1; }, "the GPU pod running");

  // disruptionAllowed stays false: sharing takes nothing from a running pod.
  patch_spec(n, R"({"sharing":{"mode":"timeSlicing","timeSlicing":{"replicas":4}}})");
  wait_node(n, 60s, [](const rapidjson::Value& x) {
    return capacity(x, "nvidia.com/gpu") == "4" && label(x, "nvidia.com/gpu.replicas") == "4" &&
           label(x, "nvidia.com/gpu.sharing-strategy") == "time-slicing" &&
           label(x, "nvidia.com/device-plugin.config") == "gpupool-mixed-ts4";
  }, "4 time-sliced replicas advertised and the device plugin config selected");
  auto nd = node(n);
  EXPECT_EQ(label(nd, "nvidia.com/gpu.product"), "NVIDIA-A100-SXM4-80GB-SHARED");
  EXPECT_FALSE(unschedulable(nd));
  EXPECT_FALSE(has_annotation(nd, "gpupool.io/pre-drain-unschedulable"));
  wait_gpunode(n, 30s, [](const rapidjson::Value& g) { return operation(g, "Sharing").phase == "Succeeded"; },
               "the sharing operation done");
  auto g = gpunode(n);
  EXPECT_NE(operation(g, "Partition").reason, "WaitingForDisruption");
  EXPECT_TRUE(operation(g, "Drain").phase.empty()) << "a drain was started: " << operation(g, "Drain").message;
  EXPECT_TRUE(recorder.deleted().empty()) << "a pod was evicted for a sharing change";
  // The new replicas are usable: three more pods fit on the one GPU.
  replica_set("shared-job", n, R"({"nvidia.com/gpu":"1"})");
  client_->patch(kube::ResourceRef{{"apps", "v1", "replicasets"}, ns(), "shared-job", ""}, kube::PatchType::MergePatch,
                 R"({"spec":{"replicas":3}})");
  wait_for(90s, [&] { return running_pods("shared-job").size() == 3; }, "3 more pods on the time-sliced GPU");
  EXPECT_EQ(running_pods("gpu-job").size(), 1u);
}

TEST_F(AgentTest, SingleStrategyAdvertisesMigDevicesAsGpus) {
  const std::string n = make_node(8);
  world(n, "gpus: [{model: a100-sxm4-80gb, count: 1}]\n");
  start_agent(n);
  wait_node(n, 60s, [](const rapidjson::Value& x) { return capacity(x, "nvidia.com/gpu") == "1"; }, "the GPU advertised");
  std::string seven;
  for (int i = 0; i < 7; ++i) seven += std::string(i ? "," : "") + R"({"profile":"1g.10gb"})";
  patch_spec(n, R"({"disruptionAllowed":true,"partitioning":{"strategy":"single","mig":[{"index":0,"enabled":true,"instances":[)" +
                    seven + "]}]}}");
  wait_node(n, 90s, [](const rapidjson::Value& x) {
    return capacity(x, "nvidia.com/gpu") == "7" && label(x, "nvidia.com/mig.strategy") == "single" && !unschedulable(x);
  }, "7 MIG devices advertised as nvidia.com/gpu, the node uncordoned");
  auto nd = node(n);
  EXPECT_EQ(label(nd, "nvidia.com/gpu.product"), "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb");
  EXPECT_EQ(label(nd, "nvidia.com/gpu.count"), "7");
  EXPECT_EQ(label(nd, "nvidia.com/device-plugin.config"), "gpupool-single-exclusive");
  EXPECT_TRUE(capacity(nd, "nvidia.com/mig-1g.10gb").empty()) << "single strategy must not advertise mig-* resources";
  // The pass patches the Node before it writes the GPUNode's status.
  wait_gpunode(n, 30s, [](const rapidjson::Value& g) { return operation(g, "Partition").phase == "Succeeded"; },
               "the partition operation Succeeded");
  replica_set("mig-as-gpu", n, R"({"nvidia.com/gpu":"1"})");
  wait_for(90s, [&] { return running_pods("mig-as-gpu").size() == 1; }, "a pod on a MIG device through nvidia.com/gpu");
}

TEST_F(AgentTest, RestartsOnlyItsOwnNodesDevicePluginWhenItDoesNotReadvertise) {
  const std::string n = make_node(9);
  const std::string other = make_node(10);
  world(n, "gpus: [{model: a100-sxm4-80gb, count: 1}]\n");
  DeletionRecorder recorder(*client_, ns());
  auto plugin_pod = [&](const std::string& name, const std::string& on) {
    client_->create({kube::core::pods(), ns(), "", ""},
                    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
                        R"(","labels":{"app.kubernetes.io/name":"nvidia-device-plugin"}},"spec":{"nodeName":")" + on +
                        R"(","tolerations":[{"operator":"Exists"}],"containers":[{"name":"plugin","image":"nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}]}})");
  };
  plugin_pod("plugin-here", n);
  plugin_pod("plugin-there", other);
  // A real device plugin advertises here, so the agent only checks it.
  start_agent(n, {"--simulated-device-plugin=false", "--device-plugin-restart-after=1"});
  wait_gpunode(n, 60s, [](const rapidjson::Value& g) { return operation(g, "Sharing").reason == "DevicePluginRestarted"; },
               "the stale device plugin restarted");
  EXPECT_NE(operation(gpunode(n), "Sharing").message.find("plugin-here"), std::string::npos);
  wait_for(30s, [&] { return recorder.deleted().count("plugin-here") == 1; }, "plugin-here deleted");
  EXPECT_EQ(recorder.deleted().count("plugin-there"), 0u) << "a device plugin pod on another node was touched";
  EXPECT_TRUE(capacity(node(n), "nvidia.com/gpu").empty()) << "the agent advertised although a device plugin does";

  // The plugin (played by the test) catches up: the operation is done.
  client_->patch(kNodes.with_name(n).with_subresource("status"), kube::PatchType::MergePatch,
                 R"({"status":{"capacity":{"nvidia.com/gpu":"1"},"allocatable":{"nvidia.com/gpu":"1"}}})");
  wait_gpunode(n, 60s, [](const rapidjson::Value& g) { return operation(g, "Sharing").phase == "Succeeded"; },
               "the sharing operation done once the plugin advertises");
  EXPECT_EQ(recorder.deleted().count("plugin-there"), 0u);
}

}  // namespace
}  // namespace gpupool::test
