// config/default on the real control plane: it renders (`kubectl kustomize`),
// applies (server-side dry run, then for real, then again with nothing
// changed), and the agent it deploys is confined to its own node by the
// API server: the real gpupool-agent, run with the bound service account token
// of the DaemonSet's pod on one kwok node (TokenRequest with the pod as
// boundObjectRef, so the token carries the node-name claim), does its work,
// and the same token is refused every write to the other node's objects,
// to pools, policies and quotas. The controller runs with its own service
// account's token and the roles config/rbac gives it, and brings a pool to Ready.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "gpupool/kube/client.h"
#include "gpupool/kube/errors.h"
#include "gpupool/testenv/process.h"
#include "support/cluster_fixture.h"
#include "support/fleet_fixture.h"
#include "support/kube_test_helpers.h"

namespace gpupool::test {
namespace {

const kube::ResourceRef kPods{kube::core::pods(), "", "", ""};
const kube::ResourceRef kLeases{{"coordination.k8s.io", "v1", "leases"}, "gpupool-system", "", ""};
const kube::ResourceRef kQuotas{{"gpupool.io", "v1alpha1", "tenantquotas"}, "", "", ""};

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

class DeployTest : public FleetTest {
 protected:
  static void SetUpTestSuite() {}  // config/default brings the CRDs

  void TearDown() override {
    agent_.reset();
    for (const auto& n : extra_pods_) cluster().kubectl_result({"delete", "pod", "-n", n.first, n.second, "--wait=false"});
    FleetTest::TearDown();
  }

  // Renders config/default and applies it server-side: a dry run, then for real.
  void apply_config_default() {
    auto rendered = cluster().kubectl_result({"kustomize", std::string(GPUPOOL_SOURCE_DIR) + "/config/default"});
    ASSERT_EQ(rendered.status, 0) << rendered.err;
    rendered_ = dir_ + "/default.yaml";
    std::ofstream(rendered_) << rendered.out;
    std::string out;
    // A server-side dry run cannot create the namespace its objects go to: it exists first.
    cluster().kubectl_result({"create", "namespace", "gpupool-system"});
    ASSERT_EQ(cluster().kubectl({"apply", "--server-side", "--dry-run=server", "-f", rendered_}, &out), 0) << out;
    ASSERT_EQ(cluster().kubectl({"apply", "--server-side", "-f", rendered_}, &out), 0) << out;
    for (const char* crd : {"gpunodes.gpupool.io", "gpupools.gpupool.io", "gpupolicies.gpupool.io", "tenantquotas.gpupool.io"}) {
      ASSERT_EQ(cluster().kubectl({"wait", "--for=condition=Established", "--timeout=60s", std::string("crd/") + crd}, &out), 0)
          << out;
    }
  }

  std::map<std::string, std::string> generations() { return object_generations(cluster(), {"-f", rendered_}); }

  std::string write_kubeconfig(const std::string& user, const std::string& token) {
    const std::string path = dir_ + "/" + user + ".kubeconfig";
    std::ofstream(path) << "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    server: " << cluster().server()
                        << "\n    certificate-authority: " << cluster().ca_file() << "\nusers:\n- name: " << user
                        << "\n  user:\n    token: " << token << "\ncontexts:\n- name: test\n  context: {cluster: test, user: "
                        << user << "}\ncurrent-context: test\n";
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
    return path;
  }

  // A token of service account gpupool-system/`account`, bound to `pod` when given.
  std::string token(const std::string& account, const std::string& pod = "") {
    std::vector<std::string> args = {"create", "token", account, "-n", "gpupool-system", "--duration=1h"};
    if (!pod.empty()) args.insert(args.end(), {"--bound-object-kind", "Pod", "--bound-object-name", pod});
    auto r = cluster().kubectl_result(args);
    EXPECT_EQ(r.status, 0) << r.err;
    return trim(r.out);
  }

  // The agent DaemonSet's pod on `node` (kwok runs it), once there is one.
  std::string agent_pod(const std::string& node) {
    std::string name;
    wait_for(60s, [&] {
      kube::ListOptions lo;
      lo.label_selector = "app.kubernetes.io/name=gpupool-agent";
      lo.field_selector = "spec.nodeName=" + node;
      auto pods = client_->list(kPods.with_namespace("gpupool-system"), lo);
      if (pods["items"].Empty()) return false;
      name = str(pods["items"][0], {"metadata", "name"});
      return true;
    }, "the agent DaemonSet's pod on " + node);
    return name;
  }

  // `write` is refused by the API server with 403; the message holds `words`.
  void expect_forbidden(const std::string& what, const std::function<void()>& write, const std::string& words) {
    SCOPED_TRACE(what);
    try {
      write();
      ADD_FAILURE() << what << ": allowed";
    } catch (const kube::ApiError& e) {
      EXPECT_EQ(e.code(), 403) << what << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << what << ": " << e.what();
    }
  }

  // A pod on `node` in `ns` with `labels` (kwok runs it), holding a GPU when `gpu`.
  void pod_on(const std::string& ns, const std::string& name, const std::string& node, const std::string& labels_json,
              bool gpu = false) {
    const std::string resources = gpu ? R"(,"resources":{"limits":{"nvidia.com/gpu":"1"}})" : "";
    const std::string body = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","labels":)" +
                             labels_json + R"(},"spec":{"nodeName":")" + node +
                             R"(","tolerations":[{"operator":"Exists"}],"containers":[{"name":"c","image":"x")" +
                             resources + "}]}}";
    client_->create(kPods.with_namespace(ns), body);
    extra_pods_.emplace_back(ns, name);
  }

  static void evict(kube::Client& as, const std::string& ns, const std::string& pod) {
    as.post_raw(kube::ResourceRef{kube::core::pods(), ns, pod, "eviction"},
                R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":")" + pod + R"(","namespace":")" + ns +
                    R"("}})");
  }

  // The controller under its own service account's token and roles, with
  // leader election and its webhooks on a loopback port.
  void start_confined_controller() {
    const int port = free_port();
    ASSERT_GT(port, 0);
    const std::string address = "127.0.0.1:" + std::to_string(port);
    webhooks_started_ = true;
    testenv::SpawnSpec spec;
    spec.path = GPUPOOL_CONTROLLER_BIN;
    spec.args = {"--kubeconfig", write_kubeconfig("controller", token("gpupool-controller")), "--metrics-bind-address=0",
                 "--health-probe-bind-address=0", "--log-format=json", "--agent-namespace", "gpupool-system",
                 "--leader-elect", "--leader-election-namespace", "gpupool-system", "--webhook-bind-address", address,
                 "--webhook-url", "https://" + address};
    spec.log_file = dir_ + "/controller.log";
    controller_ = std::make_unique<testenv::Process>(testenv::Process::spawn(spec));
    // Serving once its configuration is written.
    wait_for(60s, [&] {
      return cluster().kubectl_result({"get", "validatingwebhookconfiguration", "gpupool-validating-webhook"}).status == 0;
    }, "the controller's webhook configuration\n" + log_tail("controller.log"));
  }

  std::string rendered_;
  std::unique_ptr<testenv::Process> agent_;
  std::vector<std::pair<std::string, std::string>> extra_pods_;
};

TEST_F(DeployTest, ConfigDefaultAppliesAndASecondApplyChangesNothing) {
  ASSERT_NO_FATAL_FAILURE(apply_config_default());
  const auto before = generations();
  EXPECT_GE(before.size(), 30u);
  EXPECT_TRUE(before.count("Deployment gpupool-system/gpupool-controller"));
  EXPECT_TRUE(before.count("DaemonSet gpupool-system/gpupool-agent"));
  EXPECT_TRUE(before.count("ValidatingAdmissionPolicy /gpupool-agent-nodes"));
  // What Argo CD and Flux compute: the server-side diff of the same files is empty.
  auto diff = cluster().kubectl_result({"diff", "--server-side", "-f", rendered_});
  EXPECT_EQ(diff.status, 0) << diff.out << diff.err;
  std::string out;
  ASSERT_EQ(cluster().kubectl({"apply", "--server-side", "-f", rendered_}, &out), 0) << out;
  EXPECT_EQ(generations(), before) << "a second server-side apply of config/default changed a spec";
}

TEST_F(DeployTest, AnAgentTokenWritesOnlyItsOwnNodesObjects) {
  ASSERT_NO_FATAL_FAILURE(apply_config_default());
  // The controller's webhook confines the agents' evictions.
  ASSERT_NO_FATAL_FAILURE(start_confined_controller());
  testenv::NodeSpec spec;
  spec.first_index = 40;
  spec.labels = {{"gpupool.io/gpu-node", "true"}};
  const auto names = create_kwok_nodes(cluster(), 2, spec);
  nodes_.insert(nodes_.end(), names.begin(), names.end());
  const std::string a = names[0], b = names[1];
  const std::map<std::string, std::string> tokens = {{a, token("gpupool-agent", agent_pod(a))},
                                                     {b, token("gpupool-agent", agent_pod(b))}};

  // The real agent on node a with its pod's bound token: its whole job is allowed.
  world(a, "driverVersion: \"550.54.15\"\ngpus: [{model: a100-sxm4-80gb, count: 2}]\n");
  testenv::SpawnSpec s;
  s.path = GPUPOOL_AGENT_BIN;
  s.args = {"--kubeconfig", write_kubeconfig("agent", tokens.at(a)), "--node-name", a, "--namespace", "gpupool-system",
            "--backend", "simulated", "--simulated-config", dir_ + "/" + a + ".yaml", "--simulated-state",
            dir_ + "/" + a + ".state.json", "--metrics-bind-address=0", "--health-probe-bind-address=0",
            "--inventory-interval=0.5", "--lease-renew-interval=1", "--log-format=json"};
  s.log_file = dir_ + "/agent.log";
  agent_ = std::make_unique<testenv::Process>(testenv::Process::spawn(s));
  wait_for(60s, [&] {
    auto n = get(kNodes, a);
    return at(get(kGpuNodes, a), {"status", "gpus"}) != nullptr && label(n, "nvidia.com/gpu.count") == "2" &&
           str(n, {"status", "capacity", "nvidia.com/gpu"}) == "2";
  }, "the confined agent reporting its GPUs, labelling its Node and advertising them\n" + log_tail("agent.log"));
  EXPECT_NO_THROW(client_->get(kLeases.with_name("gpupool-agent-" + a)));
  EXPECT_EQ(log_tail("agent.log").find("Forbidden"), std::string::npos) << log_tail("agent.log");
  agent_.reset();  // what follows is the tokens', not the agent's
  client_->create(kGpuNodes, R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUNode","metadata":{"name":")" + b +
                                  R"("},"spec":{"nodeName":")" + b + R"("}})");
  for (const auto& node : names) {
    pod_on("gpupool-system", "plugin-" + node, node, R"({"app":"nvidia-device-plugin-daemonset"})");
    pod_on("default", "gpu-" + node, node, R"({"app":"training"})", true);
  }
  pod_on("default", "cpu-" + a, a, R"({"app":"web"})");

  // Each node's token against the other node's objects.
  for (const auto& [mine, other] : {std::pair{a, b}, std::pair{b, a}}) {
    SCOPED_TRACE("the token of node " + mine);
    kube::Client agent(rest_config(cluster(), tokens.at(mine)));
    const std::string claim = "gpupool-agent of node " + mine;
    expect_forbidden("create another node's GPUNode", [&] {
      agent.create(kGpuNodes, R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUNode","metadata":{"name":")" + other +
                                  R"("},"spec":{"nodeName":")" + other + R"("}})");
    }, claim);
    expect_forbidden("write another node's GPUNode status", [&] {
      auto g = client_->get(kGpuNodes.with_name(other));
      const auto status = kube::parse_json(R"({"observedGeneration":1})");
      g.EraseMember("status");
      g.AddMember("status", rapidjson::Value(status, g.GetAllocator()), g.GetAllocator());
      agent.update(kGpuNodes.with_name(other).with_subresource("status"), kube::to_json(g));
    }, claim);
    expect_forbidden("label another Node", [&] {
      agent.patch(kNodes.with_name(other), kube::PatchType::MergePatch, R"({"metadata":{"labels":{"nvidia.com/gpu.count":"9"}}})");
    }, claim);
    expect_forbidden("cordon another Node", [&] {
      agent.patch(kNodes.with_name(other), kube::PatchType::MergePatch, R"({"spec":{"unschedulable":true}})");
    }, claim);
    expect_forbidden("advertise GPUs on another Node", [&] {
      agent.patch(kNodes.with_name(other).with_subresource("status"), kube::PatchType::MergePatch,
                  R"({"status":{"capacity":{"nvidia.com/gpu":"8"}}})");
    }, claim);
    expect_forbidden("renew another node's Lease", [&] {
      agent.create(kLeases, R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"gpupool-agent-)" +
                                other + R"("},"spec":{"holderIdentity":")" + other + R"("}})");
    }, claim);
    expect_forbidden("create an installer pod on another node", [&] {
      agent.create(kPods.with_namespace("gpupool-system"),
                   R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"evil-)" + other + R"(","labels":{"gpupool.io/node":")" +
                       other + R"("}},"spec":{"nodeName":")" + other + R"(","containers":[{"name":"c","image":"x"}]}})");
    }, claim);
    expect_forbidden("delete the device plugin pod of another node", [&] {
      agent.remove(kPods.with_namespace("gpupool-system").with_name("plugin-" + other));
    }, claim);
    expect_forbidden("evict a GPU pod on another node", [&] { evict(agent, "default", "gpu-" + other); },
                     claim + " may only evict pods on node " + mine);
    expect_forbidden("create a GPUPool", [&] {
      agent.create(kPools, R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUPool","metadata":{"name":"evil"},"spec":{}})");
    }, "cannot create resource");
    expect_forbidden("patch a TenantQuota", [&] {
      agent.patch(kQuotas.with_namespace("default").with_name("any"), kube::PatchType::MergePatch, R"({"spec":{}})");
    }, "cannot patch resource");
    expect_forbidden("list TenantQuotas", [&] { agent.list(kQuotas); }, "cannot list resource");
    expect_forbidden("read ConfigMaps", [&] {
      agent.list(kube::ResourceRef{kube::core::configmaps(), "gpupool-system", "", ""});
    }, "cannot list resource");
  }

  // Node a's token on its own node: only what the agent needs.
  kube::Client agent(rest_config(cluster(), tokens.at(a)));
  const std::string claim = "gpupool-agent of node " + a;
  expect_forbidden("change its own GPUNode's spec", [&] {
    agent.patch(kGpuNodes.with_name(a), kube::PatchType::MergePatch, R"({"spec":{"pool":"stolen"}})");
  }, "cannot patch resource");
  expect_forbidden("move its own Node to another pool", [&] {
    agent.patch(kNodes.with_name(a), kube::PatchType::MergePatch, R"({"metadata":{"labels":{"gpupool.io/pool":"p"}}})");
  }, claim);
  expect_forbidden("taint its own Node", [&] {
    agent.patch(kNodes.with_name(a), kube::PatchType::MergePatch, R"({"spec":{"taints":[{"key":"x","effect":"NoSchedule"}]}})");
  }, claim);
  expect_forbidden("change its own Node's CPU capacity", [&] {
    agent.patch(kNodes.with_name(a).with_subresource("status"), kube::PatchType::MergePatch,
                R"({"status":{"capacity":{"cpu":"999"}}})");
  }, claim);
  expect_forbidden("delete a GPU pod on its own node (it evicts)", [&] {
    agent.remove(kPods.with_namespace("default").with_name("gpu-" + a));
  }, claim);
  expect_forbidden("evict a pod on its own node that holds no GPU", [&] { evict(agent, "default", "cpu-" + a); },
                   claim + " may only evict GPU pods");
  EXPECT_NO_THROW(agent.remove(kPods.with_namespace("gpupool-system").with_name("plugin-" + a)));
  EXPECT_NO_THROW(evict(agent, "default", "gpu-" + a));
  wait_for(30s, [&] {
    try {
      client_->get(kPods.with_namespace("default").with_name("gpu-" + a));
      return false;
    } catch (const kube::ApiError& e) {
      return e.is_not_found();
    }
  }, "the GPU pod on node " + a + " gone after its agent's eviction");

  // A token of the agent's account without the pod binding carries no node: nothing.
  kube::Client unbound(rest_config(cluster(), token("gpupool-agent")));
  expect_forbidden("write without a node claim", [&] {
    unbound.patch(kNodes.with_name(a), kube::PatchType::MergePatch, R"({"metadata":{"labels":{"nvidia.com/gpu.count":"9"}}})");
  }, "no node-name claim");
  expect_forbidden("evict without a node claim", [&] { evict(unbound, "default", "gpu-" + b); }, "no node-name claim");
}

TEST_F(DeployTest, TheControllerWithItsOwnRolesBringsAPoolToReady) {
  ASSERT_NO_FATAL_FAILURE(apply_config_default());
  // The deployed agents must not be what serves this test's nodes: plain kwok nodes, agents run here.
  agent_args_ = {"--namespace", "gpupool-system"};
  fleet(50, 1, {{"pool", "deploy"}});
  ASSERT_NO_FATAL_FAILURE(start_confined_controller());
  ASSERT_NO_FATAL_FAILURE(
      apply_pool(pool_yaml("deploy", "pool: deploy", "  monitoring:\n    dashboard:\n      enabled: true\n")));
  ASSERT_TRUE(wait_pool("deploy", 90s, [](const rapidjson::Value& p) {
    return condition(p, "Ready") == "True" && condition(p, "MonitoringRolledOut", "reason") == "PrometheusOperatorMissing";
  }, "pool deploy Ready under the controller's own roles"));
  EXPECT_EQ(log_tail("controller.log").find("forbidden"), std::string::npos) << log_tail("controller.log");
}

}  // namespace
}  // namespace gpupool::test
