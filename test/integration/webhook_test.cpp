// The controller's validating webhook on the real control plane, over real
// TLS with the CA the controller made: `kubectl apply` refuses what
// `gpupoolctl validate` refuses, with the same words.
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "support/fleet_fixture.h"

namespace gpupool::test {
namespace {

// A pool the MIG planner refuses (2 x 4g.40gb do not fit an A100's 7 slices).
const std::string kInvalidPoolFile = std::string(GPUPOOL_SOURCE_DIR) + "/test/data/a100-mig-overcommit.yaml";

using WebhookTest = FleetTest;

TEST_F(WebhookTest, KubectlApplyRefusesAnInvalidPoolWithTheMessageValidatePrints) {
  start_controller_with_webhook();
  const std::string& file = kInvalidPoolFile;
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

// kube-apiserver keeps its connection to the webhook between reviews (its
// client drops idle ones after 90 s): after an idle gap longer than the 5 s
// the server used to keep one, the next reviews go over the same connection,
// which the controller's connection count shows. A server closing it first
// raced with a review sent at that moment, and kube-apiserver refused that
// request with a 500 ("write: broken pipe").
TEST_F(WebhookTest, TheApiServersConnectionOutlivesAnIdleGap) {
  const int metrics_port = free_port();
  ASSERT_GT(metrics_port, 0);
  start_controller_with_webhook({"--metrics-bind-address=127.0.0.1:" + std::to_string(metrics_port)});
  const auto refused = [&] {
    std::string out;
    cluster().kubectl({"apply", "--dry-run=server", "-f", kInvalidPoolFile}, &out);
    return out.find("denied the request") != std::string::npos;
  };
  ASSERT_TRUE(testenv::wait_until(refused, 60s)) << log_tail("controller.log");
  const auto connections = [&]() -> long {
    const auto r = testenv::run_command("curl", {"-sf", "http://127.0.0.1:" + std::to_string(metrics_port) + "/metrics"});
    const std::string name = "\ngpupool_webhook_connections_total ";
    const auto at = r.out.find(name);
    return r.status != 0 || at == std::string::npos ? -1 : std::stol(r.out.substr(at + name.size()));
  };
  const long before = connections();
  ASSERT_GE(before, 1);

  // The idle gap is what is tested, not a wait for something to happen.
  std::this_thread::sleep_for(7s);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(refused()) << i;
  EXPECT_EQ(connections(), before) << "the API server had to connect again";
}

}  // namespace
}  // namespace gpupool::test
