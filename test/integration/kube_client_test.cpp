// The REST client against a real kube-apiserver over HTTPS with token auth.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>

#include "gpupool/kube/client.h"
#include "gpupool/kube/config.h"
#include "gpupool/kube/discovery.h"
#include "support/cluster_fixture.h"
#include "support/kube_test_helpers.h"

namespace gpupool::kube {
namespace {

using namespace std::chrono_literals;
using test::ClusterTest;

ResourceRef configmaps(const std::string& ns) { return {core::configmaps(), ns, "", ""}; }

std::string configmap_json(const std::string& name, const std::string& labels = "{}", const std::string& data = "{}") {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"(","labels":)" + labels +
         R"(},"data":)" + data + "}";
}

class KubeClientTest : public ClusterTest {
 protected:
  Client admin() { return Client(test::rest_config(cluster(), cluster().admin_token())); }
};

TEST_F(KubeClientTest, CrudOnConfigMaps) {
  Client c = admin();
  auto created = c.create(configmaps(ns()), configmap_json("cm1", R"({"app":"a"})", R"({"k":"v1"})"));
  EXPECT_EQ(string_at(created, {"metadata", "name"}), "cm1");
  EXPECT_FALSE(string_at(created, {"metadata", "uid"}).empty());

  auto got = c.get(configmaps(ns()).with_name("cm1"));
  EXPECT_EQ(string_at(got, {"data", "k"}), "v1");

  got["data"]["k"].SetString("v2", got.GetAllocator());
  auto updated = c.update(configmaps(ns()).with_name("cm1"), to_json(got));
  EXPECT_EQ(string_at(updated, {"data", "k"}), "v2");

  auto merged = c.patch(configmaps(ns()).with_name("cm1"), PatchType::MergePatch, R"({"data":{"extra":"x"}})");
  EXPECT_EQ(string_at(merged, {"data", "extra"}), "x");
  auto json_patched = c.patch(configmaps(ns()).with_name("cm1"), PatchType::JsonPatch,
                              R"([{"op":"replace","path":"/data/k","value":"v3"}])");
  EXPECT_EQ(string_at(json_patched, {"data", "k"}), "v3");
  auto strategic = c.patch(configmaps(ns()).with_name("cm1"), PatchType::StrategicMergePatch,
                           R"({"metadata":{"labels":{"tier":"db"}}})");
  EXPECT_EQ(string_at(strategic, {"metadata", "labels", "tier"}), "db");
  EXPECT_EQ(string_at(strategic, {"metadata", "labels", "app"}), "a");

  EXPECT_THROW(
      {
        try {
          c.create(configmaps(ns()), configmap_json("cm1"));
        } catch (const ApiError& e) {
          EXPECT_TRUE(e.is_already_exists());
          throw;
        }
      },
      ApiError);

  c.remove(configmaps(ns()).with_name("cm1"));
  try {
    c.get(configmaps(ns()).with_name("cm1"));
    FAIL() << "deleted object still readable";
  } catch (const ApiError& e) {
    EXPECT_TRUE(e.is_not_found()) << e.what();
    EXPECT_EQ(e.code(), 404);
  }
}

TEST_F(KubeClientTest, StaleResourceVersionIsAConflict) {
  Client c = admin();
  c.create(configmaps(ns()), configmap_json("cm", "{}", R"({"k":"1"})"));
  auto first = c.get(configmaps(ns()).with_name("cm"));
  auto second = c.get(configmaps(ns()).with_name("cm"));
  first["data"]["k"].SetString("from-first", first.GetAllocator());
  c.update(configmaps(ns()).with_name("cm"), to_json(first));
  second["data"]["k"].SetString("from-second", second.GetAllocator());
  try {
    c.update(configmaps(ns()).with_name("cm"), to_json(second));
    FAIL() << "update with a stale resourceVersion succeeded";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 409);
    EXPECT_TRUE(e.is_conflict()) << e.what();
  }
  EXPECT_EQ(string_at(c.get(configmaps(ns()).with_name("cm")), {"data", "k"}), "from-first");
}

TEST_F(KubeClientTest, DeletePreconditionsAndPropagation) {
  Client c = admin();
  auto cm = c.create(configmaps(ns()), configmap_json("cm"));
  DeleteOptions wrong_uid;
  wrong_uid.precondition_uid = "00000000-0000-0000-0000-000000000000";
  try {
    c.remove(configmaps(ns()).with_name("cm"), wrong_uid);
    FAIL() << "delete with a wrong uid precondition succeeded";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 409) << e.what();
  }
  DeleteOptions right;
  right.precondition_uid = string_at(cm, {"metadata", "uid"});
  right.precondition_resource_version = string_at(cm, {"metadata", "resourceVersion"});
  right.propagation_policy = "Foreground";
  auto answer = c.remove(configmaps(ns()).with_name("cm"), right);
  // Foreground: the object stays, marked, until the garbage collector finishes.
  EXPECT_TRUE(answer["metadata"].HasMember("deletionTimestamp"));
  test::wait_for(30s, [&] {
    try {
      c.get(configmaps(ns()).with_name("cm"));
      return false;
    } catch (const ApiError& e) {
      return e.is_not_found();
    }
  }, "foreground deletion to finish");
}

TEST_F(KubeClientTest, LabelAndFieldSelectors) {
  Client c = admin();
  c.create(configmaps(ns()), configmap_json("a", R"({"tier":"web","team":"x"})"));
  c.create(configmaps(ns()), configmap_json("b", R"({"tier":"db","team":"x"})"));
  c.create(configmaps(ns()), configmap_json("c", R"({"tier":"web","team":"y"})"));
  auto names = [&](ListOptions o) {
    std::set<std::string> out;
    auto list = c.list(configmaps(ns()), o);
    for (const auto& item : list["items"].GetArray()) {
      auto n = string_at(item, {"metadata", "name"});
      if (n != "kube-root-ca.crt") out.insert(n);
    }
    return out;
  };
  ListOptions web;
  web.label_selector = "tier=web";
  EXPECT_EQ(names(web), (std::set<std::string>{"a", "c"}));
  ListOptions set_based;
  set_based.label_selector = "tier in (db,cache),team=x";
  EXPECT_EQ(names(set_based), (std::set<std::string>{"b"}));
  ListOptions by_name;
  by_name.field_selector = "metadata.name=c";
  EXPECT_EQ(names(by_name), (std::set<std::string>{"c"}));
  ListOptions neither;
  neither.label_selector = "tier!=web";
  neither.field_selector = "metadata.name!=kube-root-ca.crt";
  EXPECT_EQ(names(neither), (std::set<std::string>{"b"}));
}

TEST_F(KubeClientTest, PaginationAcrossSeveralPages) {
  Client c = admin();
  for (int i = 0; i < 23; ++i) c.create(configmaps(ns()), configmap_json("p" + std::to_string(i), R"({"paged":"yes"})"));
  ListOptions o;
  o.label_selector = "paged=yes";
  o.limit = 5;
  uint64_t before = c.stats().requests.load();
  std::set<std::string> seen;
  std::string rv = c.list_items(configmaps(ns()), o, [&](std::string_view item) {
    auto doc = parse_json(item);
    EXPECT_TRUE(seen.insert(string_at(doc, {"metadata", "name"})).second) << "an item came twice";
  });
  EXPECT_EQ(seen.size(), 23u);
  EXPECT_EQ(c.stats().requests.load() - before, 5u) << "23 items at 5 a page take 5 requests";
  EXPECT_FALSE(rv.empty());

  auto first = parse_json(c.list_page_raw(configmaps(ns()), o));
  EXPECT_FALSE(string_at(first, {"metadata", "continue"}).empty());
  EXPECT_EQ(first["items"].Size(), 5u);
}

TEST_F(KubeClientTest, ServerSideApplyConflictsAndForce) {
  Client c = admin();
  std::string manifest = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ssa"},"data":{"owner":"alpha"}})";
  PatchOptions alpha;
  alpha.field_manager = "alpha";
  auto applied = c.patch(configmaps(ns()).with_name("ssa"), PatchType::Apply, manifest, alpha);
  EXPECT_EQ(string_at(applied, {"data", "owner"}), "alpha");

  std::string theirs = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ssa"},"data":{"owner":"beta"}})";
  PatchOptions beta;
  beta.field_manager = "beta";
  try {
    c.patch(configmaps(ns()).with_name("ssa"), PatchType::Apply, theirs, beta);
    FAIL() << "a conflicting apply succeeded without force";
  } catch (const ApiError& e) {
    EXPECT_TRUE(e.is_conflict()) << e.what();
    ASSERT_FALSE(e.causes().empty());
    EXPECT_EQ(e.causes()[0].field, ".data.owner");
  }
  beta.force = true;
  auto forced = c.patch(configmaps(ns()).with_name("ssa"), PatchType::Apply, theirs, beta);
  EXPECT_EQ(string_at(forced, {"data", "owner"}), "beta");
  bool beta_owns = false;
  for (const auto& mf : forced["metadata"]["managedFields"].GetArray()) {
    if (string_at(mf, {"manager"}) == "beta") beta_owns = true;
  }
  EXPECT_TRUE(beta_owns);
}

TEST_F(KubeClientTest, CustomResourcesAndStatusSubresource) {
  Client c = admin();
  test::install_widget_crd(c);
  ResourceRef widgets{{"test.gpupool.io", "v1", "widgets"}, ns(), "", ""};
  auto created = c.create(widgets, R"({"apiVersion":"test.gpupool.io/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"size":3}})");
  EXPECT_EQ(string_at(created, {"metadata", "name"}), "w1");
  EXPECT_EQ(created["metadata"]["generation"].GetInt64(), 1);

  // Writing status through the main resource is ignored; through /status it lands.
  auto status_patch = R"({"status":{"phase":"Ready"}})";
  auto via_main = c.patch(widgets.with_name("w1"), PatchType::MergePatch, status_patch);
  EXPECT_EQ(string_at(via_main, {"status", "phase"}), "");
  auto via_status = c.patch(widgets.with_name("w1").with_subresource("status"), PatchType::MergePatch, status_patch);
  EXPECT_EQ(string_at(via_status, {"status", "phase"}), "Ready");
  EXPECT_EQ(via_status["metadata"]["generation"].GetInt64(), 1) << "status writes do not bump generation";

  auto spec_patch = c.patch(widgets.with_name("w1"), PatchType::MergePatch, R"({"spec":{"size":4}})");
  EXPECT_EQ(spec_patch["metadata"]["generation"].GetInt64(), 2);

  try {
    c.create(widgets, R"({"apiVersion":"test.gpupool.io/v1","kind":"Widget","metadata":{"name":"w2"},"spec":{"size":-1}})");
    FAIL() << "schema violation accepted";
  } catch (const ApiError& e) {
    EXPECT_TRUE(e.is_invalid()) << e.what();
    ASSERT_FALSE(e.causes().empty());
    EXPECT_EQ(e.causes()[0].field, "spec.size");
  }
  auto list = c.list(widgets);
  EXPECT_EQ(list["items"].Size(), 1u);
  c.remove(widgets.with_name("w1"));
}

TEST_F(KubeClientTest, ResourceQuotaAdmissionRejectsPodsOverQuota) {
  Client c = admin();
  ResourceRef quotas{{"", "v1", "resourcequotas"}, ns(), "", ""};
  c.create(quotas, R"({"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"gpus"},
      "spec":{"hard":{"requests.nvidia.com/gpu":"1"}}})");
  // Admission counts usage only once the quota controller has computed status.used.
  test::wait_for(30s, [&] {
    auto q = c.get(quotas.with_name("gpus"));
    return q.HasMember("status") && q["status"].HasMember("used");
  }, "quota status.used");
  auto gpu_pod = [&](const std::string& name) {
    return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
           R"("},"spec":{"containers":[{"name":"c","image":"x","resources":{"requests":{"nvidia.com/gpu":"1"},"limits":{"nvidia.com/gpu":"1"}}}]}})";
  };
  ResourceRef pods{core::pods(), ns(), "", ""};
  c.create(pods, gpu_pod("first"));
  try {
    c.create(pods, gpu_pod("second"));
    FAIL() << "a pod over the namespace's GPU quota was admitted";
  } catch (const ApiError& e) {
    EXPECT_TRUE(e.is_forbidden()) << e.what();
    EXPECT_NE(e.status_message().find("exceeded quota: gpus"), std::string::npos) << e.status_message();
  }
}

TEST_F(KubeClientTest, ScaleSubresource) {
  Client c = admin();
  ResourceRef deployments{{"apps", "v1", "deployments"}, ns(), "", ""};
  c.create(deployments, R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},
      "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
      "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"x"}]}}}})");
  auto scale = c.get(deployments.with_name("web").with_subresource("scale"));
  EXPECT_EQ(string_at(scale, {"kind"}), "Scale");
  EXPECT_EQ(scale["spec"]["replicas"].GetInt(), 1);
  c.patch(deployments.with_name("web").with_subresource("scale"), PatchType::MergePatch, R"({"spec":{"replicas":3}})");
  EXPECT_EQ(c.get(deployments.with_name("web"))["spec"]["replicas"].GetInt(), 3);
}

TEST_F(KubeClientTest, DiscoveryResolvesCoreGroupsAndCrds) {
  Client c = admin();
  Discovery d(c);
  auto pods = d.resolve("v1", "Pod");
  EXPECT_EQ(pods.gvr.resource, "pods");
  EXPECT_TRUE(pods.namespaced);
  EXPECT_NE(std::find(pods.subresources.begin(), pods.subresources.end(), "eviction"), pods.subresources.end());
  auto nodes = d.resolve("v1", "Node");
  EXPECT_FALSE(nodes.namespaced);
  auto deploy = d.resolve("apps", "Deployment");
  EXPECT_EQ(deploy.gvr.version, "v1");
  EXPECT_EQ(deploy.gvr.resource, "deployments");
  EXPECT_THROW(d.resolve("nope.example.com/v1", "Thing"), ApiError);
  // A CRD installed after the cache was filled is found on a miss.
  test::install_widget_crd(c);
  auto widget = d.resolve("test.gpupool.io/v1", "Widget");
  EXPECT_EQ(widget.gvr.resource, "widgets");
  EXPECT_NE(std::find(widget.subresources.begin(), widget.subresources.end(), "status"), widget.subresources.end());
}

TEST_F(KubeClientTest, ReusesConnectionsOverHttp2) {
  Client c = admin();
  for (int i = 0; i < 20; ++i) c.get({core::namespaces(), "", ns(), ""});
  EXPECT_LE(c.stats().connections_opened.load(), 2u) << "20 sequential requests should share a connection";
  EXPECT_EQ(c.stats().http2_responses.load(), 20u) << "kube-apiserver offers HTTP/2 over TLS";
}

TEST_F(KubeClientTest, ForbiddenWithoutRbac) {
  Client alice(test::rest_config(cluster(), cluster().token_for("alice")));
  try {
    alice.list(configmaps(ns()));
    FAIL() << "alice has no RBAC and listed configmaps";
  } catch (const ApiError& e) {
    EXPECT_TRUE(e.is_forbidden()) << e.what();
    EXPECT_NE(e.status_message().find("alice"), std::string::npos) << e.status_message();
  }
  Client nobody(test::rest_config(cluster(), "not-a-token"));
  try {
    nobody.list(configmaps(ns()));
    FAIL() << "an unknown token was accepted";
  } catch (const ApiError& e) {
    EXPECT_TRUE(e.is_unauthorized()) << e.what();
  }
}

TEST_F(KubeClientTest, TlsVerificationIsOnByDefault) {
  RestConfig config = test::rest_config(cluster(), cluster().admin_token());
  config.tls.ca_pem.clear();  // the system store does not know the test CA
  config.max_retries = 0;
  Client c(config);
  try {
    c.list(configmaps(ns()));
    FAIL() << "a server with an unknown CA was trusted";
  } catch (const TransportError& e) {
    EXPECT_EQ(e.kind(), TransportError::Kind::Tls) << e.what();
  }
}

TEST_F(KubeClientTest, ExecCredentialPlugin) {
  std::string dir = test::make_temp_dir("exec-plugin");
  std::string script = dir + "/credential.sh";
  std::string counter = dir + "/runs";
  {
    std::ofstream out(script);
    out << "#!/bin/sh\n"
        << "echo run >> " << counter << "\n"
        << "case \"$KUBERNETES_EXEC_INFO\" in *ExecCredential*) ;; *) exit 3;; esac\n"
        << "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"%s\"}}' \"$ADMIN_TOKEN\"\n";
  }
  ASSERT_EQ(::chmod(script.c_str(), 0755), 0);
  std::string kubeconfig = dir + "/kubeconfig";
  {
    std::ofstream out(kubeconfig);
    out << "apiVersion: v1\nkind: Config\ncurrent-context: exec\n"
        << "clusters:\n- name: local\n  cluster:\n    server: " << cluster().server() << "\n"
        << "    certificate-authority: " << cluster().ca_file() << "\n"
        << "users:\n- name: plugin\n  user:\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
        << "      command: " << script << "\n      interactiveMode: Never\n"
        << "      env:\n      - name: ADMIN_TOKEN\n        value: " << cluster().admin_token() << "\n"
        << "contexts:\n- name: exec\n  context:\n    cluster: local\n    user: plugin\n";
  }
  KubeconfigOptions opts;
  opts.path = kubeconfig;
  Client c(load_kubeconfig(opts));
  c.create(configmaps(ns()), configmap_json("from-exec"));
  EXPECT_EQ(string_at(c.get(configmaps(ns()).with_name("from-exec")), {"metadata", "name"}), "from-exec");
  std::ifstream runs(counter);
  int lines = 0;
  for (std::string l; std::getline(runs, l);) ++lines;
  EXPECT_EQ(lines, 1) << "a credential without expiry is cached, not fetched per request";
  test::remove_tree(dir);
}

TEST_F(KubeClientTest, EvictionRespectsPodDisruptionBudgets) {
  Client c = admin();
  auto nodes = test::create_kwok_nodes(cluster(), 1, test::NodeSpec{});
  ASSERT_EQ(nodes.size(), 1u);
  ResourceRef pods{core::pods(), ns(), "", ""};
  for (const char* name : {"guarded", "free"}) {
    c.create(pods, std::string(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")") + name +
                       R"(","labels":{"app":")" + name + R"("}},"spec":{"nodeName":")" + nodes[0] +
                       R"(","containers":[{"name":"c","image":"registry.k8s.io/pause:3.10"}]}})");
  }
  test::wait_for(60s, [&] {
    auto p = c.get(pods.with_name("guarded"));
    return string_at(p, {"status", "phase"}) == "Running";
  }, "pod guarded Running");
  ResourceRef pdbs{{"policy", "v1", "poddisruptionbudgets"}, ns(), "", ""};
  c.create(pdbs, R"({"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"guard"},
      "spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"guarded"}}}})");
  // The disruption controller must have observed the pod before the budget counts it.
  test::wait_for(60s, [&] {
    auto pdb = c.get(pdbs.with_name("guard"));
    return pdb.HasMember("status") && pdb["status"].HasMember("currentHealthy") &&
           pdb["status"]["currentHealthy"].GetInt() == 1;
  }, "PDB status observed");

  auto eviction = [&](const std::string& name) {
    return R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":")" + name + R"(","namespace":")" +
           ns() + R"("}})";
  };
  RestConfig no_retry = test::rest_config(cluster(), cluster().admin_token());
  no_retry.max_retries = 0;  // see the 429 itself rather than retrying it
  Client once(no_retry);
  try {
    once.post_raw(pods.with_name("guarded").with_subresource("eviction"), eviction("guarded"));
    FAIL() << "eviction through a PDB with no disruptions allowed succeeded";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 429) << e.what();
    EXPECT_TRUE(e.is_too_many_requests());
    EXPECT_NE(std::string(e.what()).find("disruption budget"), std::string::npos) << e.what();
  }
  once.post_raw(pods.with_name("free").with_subresource("eviction"), eviction("free"));
  test::wait_for(60s, [&] {
    try {
      auto p = c.get(pods.with_name("free"));
      return p["metadata"].HasMember("deletionTimestamp");
    } catch (const ApiError& e) {
      return e.is_not_found();
    }
  }, "evicted pod deleted");
}

}  // namespace
}  // namespace gpupool::kube
