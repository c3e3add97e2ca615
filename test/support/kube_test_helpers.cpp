#include "support/kube_test_helpers.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include "gpupool/testenv/wait.h"

namespace gpupool::test {

using namespace std::chrono_literals;

kube::RestConfig rest_config(const testenv::ControlPlane& cluster, const std::string& token) {
  kube::RestConfig c;
  c.server = cluster.server();
  c.tls.ca_pem = cluster.ca_pem();
  c.credentials = std::make_shared<kube::StaticCredentials>(kube::Credentials{token, "", ""});
  c.qps = 0;  // tests are not rate limited
  c.source = "test cluster";
  return c;
}

void wait_for(std::chrono::milliseconds deadline, const std::function<bool()>& condition, const std::string& what) {
  std::string last_error;
  bool ok = testenv::wait_until([&] {
    try {
      return condition();
    } catch (const std::exception& e) {
      last_error = e.what();
      return false;
    }
  }, deadline);
  if (ok) return;
  std::string msg = "timed out after " + std::to_string(deadline.count()) + " ms waiting for " + what;
  if (!last_error.empty()) msg += " (last error: " + last_error + ")";
  ADD_FAILURE() << msg;
  throw std::runtime_error(msg);
}

void install_widget_crd(kube::Client& client) {
  kube::ResourceRef crds{{"apiextensions.k8s.io", "v1", "customresourcedefinitions"}, "", "", ""};
  const char* crd = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"widgets.test.gpupool.io"},
    "spec":{"group":"test.gpupool.io","scope":"Namespaced",
      "names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},
      "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
        "schema":{"openAPIV3Schema":{"type":"object","properties":{
          "spec":{"type":"object","properties":{"size":{"type":"integer","minimum":0}}},
          "status":{"type":"object","properties":{"phase":{"type":"string"}}}}}}}]}})";
  try {
    client.create(crds, crd);
  } catch (const kube::ApiError& e) {
    if (!e.is_already_exists()) throw;
  }
  wait_for(60s, [&] {
    auto obj = client.get(crds.with_name("widgets.test.gpupool.io"));
    if (!obj.HasMember("status") || !obj["status"].HasMember("conditions") || !obj["status"]["conditions"].IsArray()) {
      return false;
    }
    for (const auto& c : obj["status"]["conditions"].GetArray()) {
      if (kube::string_at(c, {"type"}) == "Established" && kube::string_at(c, {"status"}) == "True") return true;
    }
    return false;
  }, "CRD widgets.test.gpupool.io Established");
  // Established can precede the REST endpoint by a moment.
  wait_for(30s, [&] {
    client.list_page_raw({{"test.gpupool.io", "v1", "widgets"}, "", "", ""}, {});
    return true;
  }, "widgets served");
}

std::string make_temp_dir(const std::string& prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/gpupool-" + prefix + "-XXXXXX";
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp " + tmpl + " failed");
  return tmpl;
}

void remove_tree(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
}

void install_gpupool_crds(testenv::ControlPlane& cluster) {
  std::string out;
  ASSERT_EQ(cluster.kubectl({"apply", "--server-side", "-f", std::string(GPUPOOL_SOURCE_DIR) + "/crds"}, &out), 0) << out;
  for (const char* crd : {"gpunodes.gpupool.io", "gpupools.gpupool.io", "gpupolicies.gpupool.io", "tenantquotas.gpupool.io"}) {
    ASSERT_EQ(cluster.kubectl({"wait", "--for=condition=Established", "--timeout=60s", "crd/" + std::string(crd)}, &out), 0)
        << out;
  }
  cluster.kubectl_result({"create", "namespace", "gpupool-system"});  // AlreadyExists is fine
}

std::map<std::string, std::string> object_generations(const testenv::ControlPlane& cluster,
                                                      const std::vector<std::string>& what) {
  std::vector<std::string> args = {"get"};
  args.insert(args.end(), what.begin(), what.end());
  args.insert(args.end(), {"-o", "jsonpath={range .items[*]}{.kind} {.metadata.namespace}/{.metadata.name}="
                                 "{.metadata.generation}{\"\\n\"}{end}"});
  auto r = cluster.kubectl_result(args);
  EXPECT_EQ(r.status, 0) << r.err;
  std::map<std::string, std::string> out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.rfind('=');
    if (eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

}  // namespace gpupool::test
