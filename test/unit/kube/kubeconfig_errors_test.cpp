// Bad kubeconfig files: each error names the file, the field and the reason,
// never crashes, and never quotes a token or key.
#include <gtest/gtest.h>

#include "config_test_util.h"
#include "gpupool/kube/base64.h"
#include "gpupool/kube/config.h"
#include "gpupool/kube/kubeconfig.h"

namespace gpupool::kube {
namespace {

using testing::config_error;
using testing::TempDir;

struct BadFile {
  const char* name;
  std::string content;  // "$DIR" is replaced by the temp directory
  std::string expect;   // must follow "kubeconfig <file>: " in the message
  std::optional<std::string> context = std::nullopt;
};

// Names the case in test listings instead of a byte dump.
void PrintTo(const BadFile& b, std::ostream* os) { *os << b.name; }

const std::string kGoodCluster = "clusters:\n- name: c\n  cluster:\n    server: https://k8s:6443\n";
const std::string kGoodUser = "users:\n- name: u\n  user:\n    token: s3cr3t-token\n";
const std::string kGoodContext = "contexts:\n- name: ctx\n  context:\n    cluster: c\n    user: u\ncurrent-context: ctx\n";

std::string with_cluster(const std::string& body) {
  return "clusters:\n- name: c\n  cluster:\n" + body + kGoodUser + kGoodContext;
}
std::string with_user(const std::string& body) {
  return kGoodCluster + "users:\n- name: u\n  user:\n    token: s3cr3t-token\n" + body + kGoodContext;
}
std::string with_context(const std::string& body) {
  return kGoodCluster + kGoodUser + "contexts:\n- name: ctx\n  context:\n" + body + "current-context: ctx\n";
}

std::string b64(const std::string& s) { return base64_encode(s); }

std::vector<BadFile> bad_files() {
  return {
      {"MalformedYaml", "clusters:\n- name: c\n  cluster: {server: [\n", "line 4, column 1: malformed YAML"},
      {"TabIndentation", "clusters:\n\t- name: c\n", "line 2"},
      {"TopLevelList", "- a\n- b\n", "(top level): expected a map, got a list"},
      {"TopLevelNumber", "42\n", "(top level): expected a map, got a scalar"},
      {"ClustersIsAMap", "clusters:\n  c:\n    server: x\n", "clusters: expected a list, got a map"},
      {"ClusterEntryIsANumber", "clusters:\n- 5\n", "clusters[0]: expected a map with name and cluster, got a scalar"},
      {"ClusterBodyIsAList", "clusters:\n- name: c\n  cluster: [1, 2]\n", "clusters[0].cluster: expected a map, got a list"},
      {"ServerIsAMap", with_cluster("    server: {host: x}\n"), "clusters[0].cluster.server: expected a string, got a map"},
      {"UsersIsAString", "users: everyone\n", "users: expected a list, got a scalar"},
      {"MissingName", "users:\n- user:\n    token: s3cr3t-token\n", "users[0].name: missing"},
      {"DuplicateName", kGoodCluster + "- name: c\n  cluster:\n    server: https://other\n", "clusters[1].name: duplicate name \"c\""},
      {"BadBase64", with_user("    client-certificate-data: \"not*base64!\"\n    client-key-data: " + b64(testing::kKeyPem) + "\n"),
       "users[0].user.client-certificate-data: not valid base64"},
      {"CaDataIsNotPem", with_cluster("    server: https://k8s\n    certificate-authority-data: " + b64("hello") + "\n"),
       "clusters[0].cluster.certificate-authority-data: no PEM block found"},
      {"KeyDataIsNotAKey",
       with_user("    client-certificate-data: " + b64(testing::kCertPem) + "\n    client-key-data: " + b64(testing::kCertPem) + "\n"),
       "users[0].user.client-key-data: no valid private key"},
      {"InsecureIsNotABool", with_cluster("    server: https://k8s\n    insecure-skip-tls-verify: maybe\n"),
       "clusters[0].cluster.insecure-skip-tls-verify: expected true or false, got \"maybe\""},
      {"InsecureWithCa",
       with_cluster("    server: https://k8s\n    insecure-skip-tls-verify: true\n    certificate-authority-data: " + b64(testing::kCertPem) + "\n"),
       "clusters[0].cluster.insecure-skip-tls-verify: cannot be combined with a certificate authority"},
      {"CaFileAndData",
       with_cluster("    server: https://k8s\n    certificate-authority: $DIR/ca.crt\n    certificate-authority-data: " + b64(testing::kCertPem) + "\n"),
       "clusters[0].cluster: certificate-authority and certificate-authority-data are both set"},
      {"CaFileMissing", with_cluster("    server: https://k8s\n    certificate-authority: missing-ca.crt\n"),
       "clusters[0].cluster.certificate-authority: cannot read $DIR/missing-ca.crt: No such file or directory"},
      {"NoServer", with_cluster("    insecure-skip-tls-verify: false\n"), "clusters[0].cluster.server: cluster \"c\" has no server"},
      {"ServerNotHttp", with_cluster("    server: ftp://k8s\n"), "clusters[0].cluster.server: \"ftp://k8s\" is not an https:// or http:// URL"},
      {"BadProxyUrl", with_cluster("    server: https://k8s\n    proxy-url: gopher://p\n"), "clusters[0].cluster.proxy-url: \"gopher://p\""},
      {"CertWithoutKey", with_user("    client-certificate: $DIR/client.crt\n"),
       "users[0].user: client-certificate is set without client-key"},
      {"TokenFileMissing", with_user("    tokenFile: no-token\n"), "users[0].user.tokenFile: token file $DIR/no-token: cannot read"},
      {"AuthProvider", with_user("    auth-provider:\n      name: gcp\n"), "users[0].user.auth-provider: auth providers are not supported"},
      {"BasicAuth", with_user("    username: admin\n    password: s3cr3t-token\n"), "users[0].user.username: basic authentication is not supported"},
      {"Impersonation", with_user("    as: someone-else\n"), "users[0].user.as: impersonation is not supported"},
      {"ExecWithToken", with_user("    exec:\n      command: x\n      apiVersion: client.authentication.k8s.io/v1\n"),
       "users[0].user.exec: cannot be combined with token"},
      {"ExecWithoutApiVersion", kGoodCluster + "users:\n- name: u\n  user:\n    exec:\n      command: x\n" + kGoodContext,
       "users[0].user.exec.apiVersion: not set"},
      {"ExecAlpha", kGoodCluster + "users:\n- name: u\n  user:\n    exec:\n      command: x\n      apiVersion: client.authentication.k8s.io/v1alpha1\n" + kGoodContext,
       "users[0].user.exec.apiVersion: \"client.authentication.k8s.io/v1alpha1\" is not supported"},
      {"ExecAlwaysInteractive",
       kGoodCluster + "users:\n- name: u\n  user:\n    exec:\n      command: x\n      apiVersion: client.authentication.k8s.io/v1\n      interactiveMode: Always\n" + kGoodContext,
       "users[0].user.exec.interactiveMode: Always needs a terminal"},
      {"ExecUnknownInteractiveMode", kGoodCluster + "users:\n- name: u\n  user:\n    exec:\n      command: x\n      interactiveMode: Sometimes\n",
       "users[0].user.exec.interactiveMode: \"Sometimes\" is not one of Never, IfAvailable, Always"},
      {"ExecArgsNotAList", kGoodCluster + "users:\n- name: u\n  user:\n    exec:\n      command: x\n      args: --verbose\n",
       "users[0].user.exec.args: expected a list, got a scalar"},
      {"ExecEnvWithoutName", kGoodCluster + "users:\n- name: u\n  user:\n    exec:\n      command: x\n      env:\n      - value: v\n",
       "users[0].user.exec.env[0].name: missing or invalid"},
      {"ContextClusterMissing", with_context("    cluster: nowhere\n    user: u\n"), "contexts[0].context.cluster: cluster \"nowhere\" not found"},
      {"ContextUserNotSet", with_context("    cluster: c\n"), "contexts[0].context.user: not set"},
      {"ContextUserMissing", with_context("    cluster: c\n    user: nobody\n"), "contexts[0].context.user: user \"nobody\" not found"},
      {"BadNamespace", with_context("    cluster: c\n    user: u\n    namespace: Not_A_Label\n"),
       "contexts[0].context.namespace: \"Not_A_Label\" is not a valid namespace name"},
      {"CurrentContextMissing", kGoodCluster + kGoodUser + "current-context: gone\n", "current-context \"gone\" not found"},
      {"ContextFlagMissing", kGoodCluster + kGoodUser + kGoodContext, "context \"foo\" (from --context) not found", "foo"},
      {"NoContextAtAll", kGoodCluster + kGoodUser, "no context selected"},
  };
}

class KubeconfigBadFile : public ::testing::TestWithParam<BadFile> {};

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
  return s;
}

TEST_P(KubeconfigBadFile, ErrorNamesFileAndField) {
  const BadFile& c = GetParam();
  TempDir dir;
  dir.write("ca.crt", testing::kCertPem);
  dir.write("client.crt", testing::kCertPem);
  const std::string path = dir.write("config", replace_all(c.content, "$DIR", dir.path()));
  const std::string msg = config_error([&] { load_kubeconfig(KubeconfigOptions{path, c.context}); });
  const std::string expected = "kubeconfig " + path + ": " + replace_all(c.expect, "$DIR", dir.path());
  EXPECT_EQ(msg.rfind(expected, 0), 0u) << "message: " << msg << "\nexpected prefix: " << expected;
  EXPECT_EQ(msg.find("s3cr3t-token"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("MIGHAgEAMBMG"), std::string::npos) << msg;  // the test key
}

INSTANTIATE_TEST_SUITE_P(All, KubeconfigBadFile, ::testing::ValuesIn(bad_files()),
                         [](const ::testing::TestParamInfo<BadFile>& p) { return std::string(p.param.name); });

TEST(KubeconfigFileErrors, MissingOrUnreadableFile) {
  TempDir dir;
  EXPECT_EQ(config_error([&] { load_kubeconfig(KubeconfigOptions{dir / "nope", std::nullopt}); }),
            "kubeconfig " + (dir / "nope") + ": file not found");
  EXPECT_EQ(config_error([&] { load_kubeconfig(KubeconfigOptions{dir.path(), std::nullopt}); }),
            "kubeconfig " + dir.path() + ": cannot read: Is a directory");
}

// Shapes nobody writes on purpose: each must end in ConfigError or a usable
// config, never in another exception or a crash.
TEST(KubeconfigFileErrors, OddDocumentsNeverCrash) {
  const std::string deep_list = std::string(5000, '[') + std::string(5000, ']');
  const std::string deep_map = [] {
    std::string s;
    for (int i = 0; i < 3000; ++i) s += "{a: ";
    return s + "1" + std::string(3000, '}');
  }();
  const std::vector<std::string> docs = {
      "clusters: [null]\n",
      "clusters:\n- name: [a]\n",
      "clusters:\n- name: c\n  cluster: ~\n",
      "users:\n- name: u\n  user: 5\n",
      "contexts:\n- name: x\n  context:\n    cluster: [c]\n",
      "current-context: {a: b}\n",
      "&a [*a]\n",
      "a: &x 1\nb: *x\nc: *undefined\n",
      "{",
      std::string("clusters:\n\0\x01\xff\xfe", 14),
      "? [a]\n: b\n",
      "---\n---\n",
      "clusters: !!binary aGVsbG8=\n",
      "users:\n- name: u\n  user:\n    exec: []\n",
      "users:\n- name: u\n  user:\n    exec:\n      env: {name: x}\n",
      "users:\n- name: u\n  user:\n    exec:\n      args: [[1]]\n",
      "contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n",
      "\xef\xbb\xbf" "clusters: []\n",
      deep_list,
      deep_map,
  };
  for (const std::string& doc : docs) {
    try {
      const kubeconfig::Config c = kubeconfig::parse(doc, "/odd");
      kubeconfig::to_rest_config(c, std::nullopt);
    } catch (const ConfigError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("kubeconfig /odd: ", 0), 0u) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "document " << ::testing::PrintToString(doc.substr(0, 60)) << " threw " << e.what();
    }
  }
}

TEST(KubeconfigFileErrors, NoHomeNoKubeconfig) {
  testing::ScopedEnv env;
  env.set("KUBECONFIG", std::nullopt).set("HOME", std::nullopt);
  EXPECT_NE(config_error([] { load_kubeconfig(); }).find("$HOME not set"), std::string::npos);
}

}  // namespace
}  // namespace gpupool::kube
