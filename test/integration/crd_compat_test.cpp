// The CRDs install and work on every older Kubernetes minor release still
// supported upstream (pinned in tools/controlplane/compat/, built by
// tools/controlplane/build-compat.sh): each kube-apiserver gets the CRDs, every
// sample (client-side and server-side apply), and one object per kind that a
// CEL rule or the schema must reject.
//
// tools/dev/test.sh sets GPUPOOL_COMPAT_APISERVERS ("v1.35.4=/path/kube-apiserver"
// lines, from build-compat.sh --list); without it the test skips and says why.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "gpupool/testenv/control_plane.h"
#include "gpupool/testenv/wait.h"

namespace {

namespace fs = std::filesystem;
using gpupool::testenv::CommandResult;
using gpupool::testenv::ControlPlane;
using gpupool::testenv::Options;

struct CompatApiserver {
  std::string version;
  std::string binary;
};

std::vector<CompatApiserver> compat_apiservers() {
  std::vector<CompatApiserver> out;
  const char* env = std::getenv("GPUPOOL_COMPAT_APISERVERS");
  if (env == nullptr) return out;
  std::istringstream in(env);
  std::string line;
  while (std::getline(in, line)) {
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    out.push_back({line.substr(0, eq), line.substr(eq + 1)});
  }
  return out;
}

std::vector<std::string> sample_files() {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(fs::path(GPUPOOL_SOURCE_DIR) / "config/samples")) {
    auto name = e.path().filename().string();
    if (e.path().extension() == ".yaml" && name != "kustomization.yaml" && name != "namespaces.yaml") files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::set<std::string> sample_namespaces(const std::vector<std::string>& files) {
  std::set<std::string> out;
  for (const auto& f : files) {
    for (const auto& doc : YAML::LoadAllFromFile(f)) {
      if (doc["metadata"] && doc["metadata"]["namespace"]) out.insert(doc["metadata"]["namespace"].as<std::string>());
    }
  }
  return out;
}

std::string crd_dir() { return (fs::path(GPUPOOL_SOURCE_DIR) / "crds").string(); }

class CrdCompatTest : public ::testing::TestWithParam<CompatApiserver> {};

void expect_ok(const ControlPlane& cp, const std::vector<std::string>& args, const std::string& in = "") {
  CommandResult r = cp.kubectl_result(args, in);
  std::string cmd;
  for (const auto& a : args) cmd += " " + a;
  EXPECT_EQ(r.status, 0) << "kubectl" << cmd << "\n" << r.out << r.err;
}

TEST_P(CrdCompatTest, CrdsAndSamplesWork) {
  const CompatApiserver& api = GetParam();
  Options opts;
  opts.controller_manager = false;
  opts.scheduler = false;
  opts.kwok = false;
  opts.apiserver_binary = api.binary;
  auto cp = ControlPlane::start(opts);

  std::string version;
  ASSERT_EQ(cp->kubectl({"version", "-o", "json"}, &version), 0) << version;
  EXPECT_NE(version.find("\"gitVersion\": \"" + api.version + "\""), std::string::npos) << version;

  expect_ok(*cp, {"apply", "-f", crd_dir()});
  expect_ok(*cp, {"wait", "--for=condition=Established", "--timeout=60s", "-f", crd_dir()});

  auto files = sample_files();
  ASSERT_FALSE(files.empty());
  for (const auto& ns : sample_namespaces(files)) expect_ok(*cp, {"create", "namespace", ns});

  // Client-side apply, then delete, then server-side apply of the same files.
  for (const auto& f : files) expect_ok(*cp, {"apply", "-f", f});
  std::string listed;
  ASSERT_EQ(cp->kubectl({"get", "gpupool-all", "-A", "-o", "name"}, &listed), 0) << listed;
  for (const char* kind : {"gpupool.gpupool.io/", "gpupolicy.gpupool.io/", "tenantquota.gpupool.io/",
                           "gpunode.gpupool.io/"}) {
    EXPECT_NE(listed.find(kind), std::string::npos) << kind << " missing from:\n" << listed;
  }
  for (const auto& f : files) expect_ok(*cp, {"delete", "--wait=true", "-f", f});
  for (const auto& f : files) expect_ok(*cp, {"apply", "--server-side", "-f", f});

  // A CEL rule (sharing mode timeSlicing needs its settings) and a schema
  // rule (enum) still reject on this release.
  CommandResult bad = cp->kubectl_result({"apply", "--server-side", "-f", "-"}, R"(
apiVersion: gpupool.io/v1alpha1
kind: GPUPool
metadata: {name: compat-bad-sharing}
spec:
  nodeSelector: {matchLabels: {gpupool.io/gpu-model: t4-16gb}}
  sharing: {mode: timeSlicing}
)");
  EXPECT_NE(bad.status, 0) << bad.out;
  EXPECT_NE(bad.err.find("spec.sharing"), std::string::npos) << bad.err;
  bad = cp->kubectl_result({"apply", "--server-side", "-f", "-"}, R"(
apiVersion: gpupool.io/v1alpha1
kind: GPUPool
metadata: {name: compat-bad-vendor}
spec:
  nodeSelector: {matchLabels: {gpupool.io/gpu-model: t4-16gb}}
  vendor: intel
)");
  EXPECT_NE(bad.status, 0) << bad.out;
  EXPECT_NE(bad.err.find("spec.vendor"), std::string::npos) << bad.err;
  cp->stop();
}

std::string version_name(const ::testing::TestParamInfo<CompatApiserver>& info) {
  std::string name;
  for (char c : info.param.version) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(OlderReleases, CrdCompatTest, ::testing::ValuesIn(compat_apiservers()), version_name);

// Without the variable there is nothing to instantiate; say so instead of
// passing silently.
TEST(CrdCompat, OlderApiserversAreConfigured) {
  if (compat_apiservers().empty()) {
    GTEST_SKIP() << "GPUPOOL_COMPAT_APISERVERS is not set: run tools/controlplane/build-compat.sh --list "
                    "and export its output (tools/dev/test.sh does)";
  }
  SUCCEED();
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(CrdCompatTest);

}  // namespace
