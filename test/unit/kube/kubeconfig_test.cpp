// load_kubeconfig: every authentication form, context selection, relative paths.
#include "gpupool/kube/kubeconfig.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "config_test_util.h"
#include "gpupool/kube/base64.h"
#include "gpupool/kube/token_file.h"

namespace gpupool::kube {
namespace {

using testing::config_error;
using testing::TempDir;

// A kubeconfig with one context "ctx" joining cluster "c" and user "u".
std::string single(const std::string& cluster_body, const std::string& user_body, const std::string& context_extra = "") {
  return "apiVersion: v1\nkind: Config\n"
         "clusters:\n- name: c\n  cluster:\n" + cluster_body +
         "users:\n- name: u\n  user:\n" + user_body +
         "contexts:\n- name: ctx\n  context:\n    cluster: c\n    user: u\n" + context_extra +
         "current-context: ctx\n";
}

const std::string kServer = "    server: https://k8s.example:6443\n";

RestConfig load(const std::string& path, std::optional<std::string> context = std::nullopt) {
  return load_kubeconfig(KubeconfigOptions{path, std::move(context)});
}

TEST(Kubeconfig, StaticToken) {
  TempDir dir;
  const std::string path = dir.write("config", single(kServer, "    token: abc123\n"));
  const RestConfig rc = load(path);
  EXPECT_EQ(rc.server, "https://k8s.example:6443");
  ASSERT_NE(rc.credentials, nullptr);
  EXPECT_EQ(rc.credentials->get().bearer_token, "abc123");
  EXPECT_EQ(rc.tls.ca_pem, "");
  EXPECT_FALSE(rc.tls.insecure_skip_verify);
  EXPECT_EQ(rc.default_namespace, "default");
  EXPECT_EQ(rc.source, "kubeconfig " + path + " (context \"ctx\")");
}

TEST(Kubeconfig, TokenFileIsRereadAfterRotation) {
  TempDir dir;
  dir.write("token", "first\n");
  const std::string path = dir.write("config", single(kServer, "    token: ignored\n    tokenFile: token\n"));
  const RestConfig rc = load(path);
  auto* source = dynamic_cast<TokenFileCredentials*>(rc.credentials.get());
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->path(), dir / "token");
  EXPECT_EQ(rc.credentials->get().bearer_token, "first");  // the file wins over token
  dir.write("token", "second\n");
  rc.credentials->invalidate();
  EXPECT_EQ(rc.credentials->get().bearer_token, "second");
}

TEST(Kubeconfig, ClientCertificateFiles) {
  TempDir dir;
  dir.write("pki/client.crt", testing::kCertPem);
  dir.write("pki/client.key", testing::kKeyPem);
  const std::string path =
      dir.write("config", single(kServer, "    client-certificate: pki/client.crt\n    client-key: " + (dir / "pki/client.key") + "\n"));
  const Credentials c = load(path).credentials->get();
  EXPECT_EQ(c.client_cert_pem, testing::kCertPem);
  EXPECT_EQ(c.client_key_pem, testing::kKeyPem);
  EXPECT_EQ(c.bearer_token, "");
}

TEST(Kubeconfig, ClientCertificateData) {
  TempDir dir;
  const std::string path = dir.write("config", single(kServer, "    client-certificate-data: " + base64_encode(testing::kCertPem) +
                                                                   "\n    client-key-data: " + base64_encode(testing::kKeyPem) +
                                                                   "\n    token: also-a-token\n"));
  const Credentials c = load(path).credentials->get();
  EXPECT_EQ(c.client_cert_pem, testing::kCertPem);
  EXPECT_EQ(c.client_key_pem, testing::kKeyPem);
  EXPECT_EQ(c.bearer_token, "also-a-token");
}

TEST(Kubeconfig, TokenFileWithClientCertificate) {
  TempDir dir;
  dir.write("token", "tok");
  const std::string path = dir.write("config", single(kServer, "    tokenFile: token\n    client-certificate-data: " +
                                                                   base64_encode(testing::kCertPem) + "\n    client-key-data: " +
                                                                   base64_encode(testing::kKeyPem) + "\n"));
  const Credentials c = load(path).credentials->get();
  EXPECT_EQ(c.bearer_token, "tok");
  EXPECT_EQ(c.client_cert_pem, testing::kCertPem);
}

TEST(Kubeconfig, CertificateAuthorityFileAndData) {
  TempDir dir;
  dir.write("ca.crt", testing::kCertPem);
  const RestConfig from_file = load(dir.write("a", single(kServer + "    certificate-authority: ca.crt\n", "    token: t\n")));
  EXPECT_EQ(from_file.tls.ca_pem, testing::kCertPem);
  const RestConfig from_data = load(dir.write(
      "b", single(kServer + "    certificate-authority-data: " + base64_encode(testing::kCertPem) + "\n", "    token: t\n")));
  EXPECT_EQ(from_data.tls.ca_pem, testing::kCertPem);
}

TEST(Kubeconfig, InsecureSkipTlsVerifyServerNameAndProxy) {
  TempDir dir;
  const RestConfig rc = load(dir.write(
      "config", single(kServer + "    insecure-skip-tls-verify: true\n    tls-server-name: api.internal\n"
                                 "    proxy-url: socks5://127.0.0.1:1080\n",
                       "    token: t\n")));
  EXPECT_TRUE(rc.tls.insecure_skip_verify);
  EXPECT_EQ(rc.tls.server_name, "api.internal");
  EXPECT_EQ(rc.proxy_url, "socks5://127.0.0.1:1080");
}

TEST(Kubeconfig, AnonymousUserHasNoCredentials) {
  TempDir dir;
  EXPECT_EQ(load(dir.write("config", single(kServer, "    {}\n"))).credentials, nullptr);
}

TEST(Kubeconfig, ServerWithoutSchemeIsHttpsAndTrailingSlashIsDropped) {
  TempDir dir;
  EXPECT_EQ(load(dir.write("a", single("    server: 10.0.0.1:6443\n", "    token: t\n"))).server, "https://10.0.0.1:6443");
  EXPECT_EQ(load(dir.write("b", single("    server: https://h/prefix/\n", "    token: t\n"))).server, "https://h/prefix");
}

TEST(Kubeconfig, ContextNamespace) {
  TempDir dir;
  EXPECT_EQ(load(dir.write("config", single(kServer, "    token: t\n", "    namespace: gpu-jobs\n"))).default_namespace, "gpu-jobs");
}

const char* kTwoContexts = R"(
clusters:
- name: prod
  cluster:
    server: https://prod:6443
- name: dev
  cluster:
    server: https://dev:6443
users:
- name: prod-admin
  user:
    token: prod-token
- name: dev-admin
  user:
    token: dev-token
contexts:
- name: prod
  context:
    cluster: prod
    user: prod-admin
    namespace: prod-ns
- name: dev
  context:
    cluster: dev
    user: dev-admin
current-context: prod
)";

TEST(Kubeconfig, CurrentContextIsTheDefault) {
  TempDir dir;
  const RestConfig rc = load(dir.write("config", kTwoContexts));
  EXPECT_EQ(rc.server, "https://prod:6443");
  EXPECT_EQ(rc.credentials->get().bearer_token, "prod-token");
  EXPECT_EQ(rc.default_namespace, "prod-ns");
}

TEST(Kubeconfig, ContextOverrideWins) {
  TempDir dir;
  const RestConfig rc = load(dir.write("config", kTwoContexts), "dev");
  EXPECT_EQ(rc.server, "https://dev:6443");
  EXPECT_EQ(rc.credentials->get().bearer_token, "dev-token");
  EXPECT_EQ(rc.default_namespace, "default");
  EXPECT_NE(rc.source.find("(context \"dev\")"), std::string::npos);
}

TEST(Kubeconfig, ContextOverrideWorksWithoutCurrentContext) {
  TempDir dir;
  std::string text = kTwoContexts;
  text.erase(text.find("current-context"));
  const std::string path = dir.write("config", text);
  EXPECT_EQ(load(path, "dev").server, "https://dev:6443");
  const std::string msg = config_error([&] { load(path); });
  EXPECT_NE(msg.find("kubeconfig " + path + ": no context selected"), std::string::npos) << msg;
}

TEST(Kubeconfig, ExplicitPathOverridesKubeconfigEnv) {
  TempDir dir;
  testing::ScopedEnv env;
  env.set("KUBECONFIG", dir.write("env-config", single("    server: https://from-env\n", "    token: t\n")));
  EXPECT_EQ(load(dir.write("config", single("    server: https://from-flag\n", "    token: t\n"))).server, "https://from-flag");
  EXPECT_EQ(load_kubeconfig().server, "https://from-env");
}

TEST(Kubeconfig, HomeConfigIsTheFallback) {
  TempDir dir;
  dir.write(".kube/config", single("    server: https://from-home\n", "    token: t\n"));
  testing::ScopedEnv env;
  env.set("KUBECONFIG", std::nullopt).set("HOME", dir.path());
  EXPECT_EQ(load_kubeconfig().server, "https://from-home");
}

TEST(Kubeconfig, RelativePathsResolveAgainstTheirKubeconfig) {
  TempDir dir;
  dir.write("a/certs/ca.crt", testing::kCertPem);
  dir.write("a/token", "from-a");
  // The kubeconfig is named relative to a working directory that is not its own.
  const std::string path = dir.write("a/sub/config", single(kServer + "    certificate-authority: ../certs/ca.crt\n",
                                                                    "    tokenFile: ../token\n"));
  const std::string cwd = std::filesystem::current_path().string();
  std::filesystem::current_path(dir / "a/certs");
  RestConfig rc;
  EXPECT_NO_THROW(rc = load("../sub/config"));
  std::filesystem::current_path(cwd);
  EXPECT_EQ(rc.tls.ca_pem, testing::kCertPem);
  ASSERT_NE(rc.credentials, nullptr);
  EXPECT_EQ(rc.credentials->get().bearer_token, "from-a");
  (void)path;
}

// An exec plugin configured in a kubeconfig, with a relative command path.
std::string exec_user(const std::string& api_version, const std::string& extra = "") {
  return "    exec:\n"
         "      apiVersion: " + api_version + "\n"
         "      command: ./bin/plugin.sh\n"
         "      args: [\"--region\", \"eu\"]\n"
         "      env:\n      - name: PLUGIN_MODE\n        value: test\n"
         "      interactiveMode: Never\n" + extra;
}

const char* kExecPlugin =
    "#!/bin/sh\n"
    "d=\"$(dirname \"$0\")\"\n"
    "printf '%s' \"$KUBERNETES_EXEC_INFO\" > \"$d/exec_info\"\n"
    "printf '%s %s' \"$PLUGIN_MODE\" \"$*\" > \"$d/seen\"\n"
    "echo '{\"apiVersion\":\"'\"$API\"'\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"exec-token\"}}'\n";

TEST(Kubeconfig, ExecPluginV1) {
  TempDir dir;
  dir.write("kube/bin/plugin.sh", std::string(kExecPlugin).replace(std::string(kExecPlugin).find("$API"), 4, "client.authentication.k8s.io/v1"), true);
  const RestConfig rc = load(dir.write("kube/config", single(kServer, exec_user("client.authentication.k8s.io/v1"))));
  EXPECT_EQ(rc.credentials->get().bearer_token, "exec-token");
  EXPECT_EQ(dir.read("kube/bin/seen"), "test --region eu");
}

TEST(Kubeconfig, ExecPluginV1Beta1WithClusterInfo) {
  TempDir dir;
  dir.write("kube/bin/plugin.sh",
            std::string(kExecPlugin).replace(std::string(kExecPlugin).find("$API"), 4, "client.authentication.k8s.io/v1beta1"), true);
  const RestConfig rc = load(dir.write(
      "kube/config", single(kServer + "    certificate-authority-data: " + base64_encode(testing::kCertPem) + "\n",
                            exec_user("client.authentication.k8s.io/v1beta1", "      provideClusterInfo: true\n"))));
  EXPECT_EQ(rc.credentials->get().bearer_token, "exec-token");
  rapidjson::Document info;
  info.Parse(dir.read("kube/bin/exec_info").c_str());
  ASSERT_TRUE(info.IsObject());
  EXPECT_STREQ(info["apiVersion"].GetString(), "client.authentication.k8s.io/v1beta1");
  EXPECT_STREQ(info["spec"]["cluster"]["server"].GetString(), "https://k8s.example:6443");
  EXPECT_EQ(base64_decode(info["spec"]["cluster"]["certificate-authority-data"].GetString()).value(), testing::kCertPem);
}

TEST(Kubeconfig, ParseExposesTheModel) {
  const kubeconfig::Config c = kubeconfig::parse(kTwoContexts, "/etc/kube/config");
  ASSERT_EQ(c.clusters.size(), 2u);
  EXPECT_EQ(c.clusters.at("dev").origin.field, "clusters[1]");
  EXPECT_EQ(c.contexts.at("prod").ns, "prod-ns");
  EXPECT_EQ(c.current_context, "prod");
  EXPECT_EQ(c.current_context_file, "/etc/kube/config");
  EXPECT_TRUE(kubeconfig::parse("", "/x").clusters.empty());
  EXPECT_TRUE(kubeconfig::parse("# only a comment\n", "/x").contexts.empty());
}

}  // namespace
}  // namespace gpupool::kube
