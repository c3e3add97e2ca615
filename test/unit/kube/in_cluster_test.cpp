// load_in_cluster and load_default's order of sources.
#include <gtest/gtest.h>

#include "config_test_util.h"
#include "gpupool/kube/config.h"
#include "gpupool/kube/token_file.h"

namespace gpupool::kube {
namespace {

using testing::config_error;
using testing::TempDir;

class InCluster : public ::testing::Test {
 protected:
  void SetUp() override {
    env_.set("KUBERNETES_SERVICE_HOST", "10.96.0.1").set("KUBERNETES_SERVICE_PORT", "443").set("KUBECONFIG", std::nullopt);
    dir_.write("sa/ca.crt", testing::kCertPem);
    dir_.write("sa/token", "sa-token-1\n");
    dir_.write("sa/namespace", "gpu-system\n");
  }

  std::string sa() const { return dir_ / "sa"; }

  TempDir dir_;
  testing::ScopedEnv env_;
};

TEST_F(InCluster, ReadsServiceAccount) {
  const RestConfig rc = load_in_cluster(sa());
  EXPECT_EQ(rc.server, "https://10.96.0.1:443");
  EXPECT_EQ(rc.tls.ca_pem, testing::kCertPem);
  EXPECT_FALSE(rc.tls.insecure_skip_verify);
  EXPECT_EQ(rc.default_namespace, "gpu-system");
  EXPECT_EQ(rc.source, "in-cluster");
  ASSERT_NE(rc.credentials, nullptr);
  EXPECT_EQ(rc.credentials->get().bearer_token, "sa-token-1");
}

TEST_F(InCluster, TokenIsRereadAfterRotation) {
  const RestConfig rc = load_in_cluster(sa());
  auto* source = dynamic_cast<TokenFileCredentials*>(rc.credentials.get());
  ASSERT_NE(source, nullptr);
  EXPECT_EQ(source->path(), sa() + "/token");
  dir_.write("sa/token", "sa-token-2\n");
  rc.credentials->invalidate();
  EXPECT_EQ(rc.credentials->get().bearer_token, "sa-token-2");
}

TEST_F(InCluster, Ipv6HostIsBracketed) {
  env_.set("KUBERNETES_SERVICE_HOST", "fd00::1").set("KUBERNETES_SERVICE_PORT", "6443");
  EXPECT_EQ(load_in_cluster(sa()).server, "https://[fd00::1]:6443");
}

TEST_F(InCluster, MissingNamespaceFileMeansDefault) {
  std::filesystem::remove(dir_ / "sa/namespace");
  EXPECT_EQ(load_in_cluster(sa()).default_namespace, "default");
}

TEST_F(InCluster, NotInAClusterIsAnError) {
  env_.set("KUBERNETES_SERVICE_HOST", std::nullopt);
  EXPECT_NE(config_error([&] { load_in_cluster(sa()); }).find("KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set"),
            std::string::npos);
  env_.set("KUBERNETES_SERVICE_HOST", "10.0.0.1").set("KUBERNETES_SERVICE_PORT", "https");
  EXPECT_NE(config_error([&] { load_in_cluster(sa()); }).find("KUBERNETES_SERVICE_PORT \"https\" is not a port number"),
            std::string::npos);
}

TEST_F(InCluster, MissingFilesAreErrorsNamingThem) {
  std::filesystem::remove(dir_ / "sa/token");
  const std::string token_msg = config_error([&] { load_in_cluster(sa()); });
  EXPECT_NE(token_msg.find("in-cluster: token file " + sa() + "/token: cannot read"), std::string::npos) << token_msg;
  dir_.write("sa/token", "t");
  std::filesystem::remove(dir_ / "sa/ca.crt");
  const std::string ca_msg = config_error([&] { load_in_cluster(sa()); });
  EXPECT_NE(ca_msg.find("in-cluster: " + sa() + "/ca.crt: cannot read"), std::string::npos) << ca_msg;
}

std::string kubeconfig_for(const std::string& server) {
  return "clusters:\n- name: c\n  cluster:\n    server: " + server + "\nusers:\n- name: u\n  user:\n    token: t\n"
         "contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n";
}

TEST_F(InCluster, LoadDefaultOrder) {
  env_.set("HOME", dir_ / "home");
  dir_.write("home/.kube/config", kubeconfig_for("https://home"));
  KubeconfigOptions options;
  options.service_account_dir = sa();

  // In a pod, without an explicit kubeconfig: in-cluster beats ~/.kube/config.
  EXPECT_EQ(load_default(options).source, "in-cluster");

  // $KUBECONFIG beats in-cluster.
  env_.set("KUBECONFIG", dir_.write("env-config", kubeconfig_for("https://env")));
  EXPECT_EQ(load_default(options).server, "https://env");

  // An explicit path beats $KUBECONFIG.
  options.path = dir_.write("flag-config", kubeconfig_for("https://flag"));
  EXPECT_EQ(load_default(options).server, "https://flag");

  // Outside a pod: ~/.kube/config.
  options.path.reset();
  env_.set("KUBECONFIG", std::nullopt).set("KUBERNETES_SERVICE_HOST", std::nullopt);
  EXPECT_EQ(load_default(options).server, "https://home");

  // In a pod whose service account is unusable: ~/.kube/config too.
  env_.set("KUBERNETES_SERVICE_HOST", "10.96.0.1");
  std::filesystem::remove(dir_ / "sa/token");
  EXPECT_EQ(load_default(options).server, "https://home");
}

TEST_F(InCluster, LoadDefaultWithNothingExplainsEverySource) {
  env_.set("KUBERNETES_SERVICE_HOST", std::nullopt).set("HOME", dir_ / "empty-home");
  KubeconfigOptions options;
  options.service_account_dir = sa();
  const std::string msg = config_error([&] { load_default(options); });
  EXPECT_NE(msg.find("no Kubernetes configuration found"), std::string::npos) << msg;
  EXPECT_NE(msg.find("KUBERNETES_SERVICE_HOST"), std::string::npos) << msg;
  EXPECT_NE(msg.find(dir_ / "empty-home/.kube/config does not exist"), std::string::npos) << msg;
}

}  // namespace
}  // namespace gpupool::kube
