// The controller's validating webhook on the real control plane, over real
// TLS with the CA the controller made: `kubectl apply` refuses what
// `gpupoolctl validate` refuses, with the same words.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

#include "support/fleet_fixture.h"

namespace gpupool::test {
namespace {

const char* kInvalidPool = R"(apiVersion: gpupool.io/v1alpha1
kind: GPUPool
metadata:
  name: a100-mig
spec:
  nodeSelector:
    matchLabels: {gpupool.io/gpu-model: a100-sxm4-80gb}
  partitioning:
    nvidia:
      strategy: mixed
      devices:
        - profiles: {4g.40gb: 2}
)";

// A loopback port the kernel just handed out (released again for the controller).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  if (fd >= 0) ::close(fd);
  return port;
}

class WebhookTest : public FleetTest {
 protected:
  void TearDown() override {
    // Without the controller nothing answers: the configuration goes first.
    cluster().kubectl_result({"delete", "validatingwebhookconfiguration", "gpupool-validating-webhook", "--ignore-not-found"});
    FleetTest::TearDown();
  }
  void start_controller_with_webhook() {
    const int port = free_port();
    ASSERT_GT(port, 0);
    const std::string address = "127.0.0.1:" + std::to_string(port);
    testenv::SpawnSpec spec;
    spec.path = GPUPOOL_CONTROLLER_BIN;
    spec.args = {"--kubeconfig", cluster().kubeconfig_path(), "--metrics-bind-address=0", "--health-probe-bind-address=0",
                 "--log-format=json", "--webhook-bind-address", address, "--webhook-url", "https://" + address};
    spec.log_file = dir_ + "/controller.log";
    controller_ = std::make_unique<testenv::Process>(testenv::Process::spawn(spec));
  }
};

TEST_F(WebhookTest, KubectlApplyRefusesAnInvalidPoolWithTheMessageValidatePrints) {
  start_controller_with_webhook();
  const std::string file = dir_ + "/a100-mig.yaml";
  std::ofstream(file) << kInvalidPool;
  pools_.insert("a100-mig");

  // What gpupoolctl validate says, without its "FILE:LINE: " prefix.
  auto offline = testenv::run_command(GPUPOOL_GPUPOOLCTL_BIN, {"validate", "-f", file});
  ASSERT_EQ(offline.status, 1) << offline.out << offline.err;
  std::string printed = offline.out.substr(0, offline.out.find('\n'));
  printed = printed.substr(printed.find(": ") + 2);
  ASSERT_NE(printed.find("2 x 4g.40gb need 8 compute slices; A100-SXM4-80GB has 7"), std::string::npos) << printed;

  // The webhook is registered (and answering) once a dry run is refused by it.
  std::string out;
  ASSERT_TRUE(testenv::wait_until([&] {
    cluster().kubectl({"apply", "--dry-run=server", "-f", file}, &out);
    return out.find("denied the request") != std::string::npos;
  }, 60s)) << out << "\n" << log_tail("controller.log");
  EXPECT_NE(cluster().kubectl({"apply", "-f", file}, &out), 0);
  EXPECT_NE(out.find("admission webhook \"validate.gpupool.io\" denied the request: " + printed), std::string::npos)
      << out << "\nexpected: " << printed;

  // A valid pool goes through; the CA lives in the Secret.
  apply_pool(pool_yaml("webhook-ok", "pool-test: webhook", ""));
  auto secret = client_->get(kube::ResourceRef{kube::core::secrets(), "gpupool-system", "gpupool-webhook-tls", ""});
  EXPECT_FALSE(str(secret, {"data", "ca.crt"}).empty());
  EXPECT_FALSE(str(secret, {"data", "tls.key"}).empty());

  // A restarted controller keeps the same CA (the caBundle does not change).
  const std::string ca = str(secret, {"data", "ca.crt"});
  controller_.reset();
  cluster().kubectl_result({"delete", "validatingwebhookconfiguration", "gpupool-validating-webhook"});
  start_controller_with_webhook();
  ASSERT_TRUE(testenv::wait_until([&] {
    cluster().kubectl({"apply", "--dry-run=server", "-f", file}, &out);
    return out.find("denied the request") != std::string::npos;
  }, 60s)) << out << "\n" << log_tail("controller.log");
  EXPECT_EQ(str(client_->get(kube::ResourceRef{kube::core::secrets(), "gpupool-system", "gpupool-webhook-tls", ""}),
                {"data", "ca.crt"}),
            ca);
}

}  // namespace
}  // namespace gpupool::test
