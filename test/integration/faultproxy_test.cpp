// The fault proxy in front of a real kube-apiserver: the project's client and
// kubectl work through it unchanged (TLS with a certificate from the
// cluster's CA, HTTP/1.1), watch streams flow event by event, a cut ends a
// watch mid-stream and the resumable watch carries on, injected errors and
// refusals are retried by the client, and the gpupool-faultproxy executable
// is driven through its control port.
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stop_token>
#include <thread>

#include "gpupool/faultproxy/fault_proxy.h"
#include "gpupool/kube/client.h"
#include "gpupool/kube/config.h"
#include "gpupool/kube/errors.h"
#include "gpupool/testenv/process.h"
#include "gpupool/testenv/serving_cert.h"
#include "support/cluster_fixture.h"
#include "support/kube_test_helpers.h"

namespace gpupool::test {
namespace {

using namespace std::chrono_literals;
using faultproxy::FaultProxy;

constexpr auto kDeadline = 30s;

// Names of the objects a watch reported, by event type.
class Recorder {
 public:
  bool operator()(const kube::WatchEvent& ev) {
    if (ev.type == kube::WatchEventType::Bookmark) return true;
    std::lock_guard lock(mu_);
    events_.push_back(kube::string_at(kube::parse_json(ev.object), {"metadata", "name"}));
    return true;
  }
  int count(const std::string& name) const {
    std::lock_guard lock(mu_);
    return static_cast<int>(std::count(events_.begin(), events_.end(), name));
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> events_;
};

class FaultProxyClusterTest : public ClusterTest {
 protected:
  static void SetUpTestSuite() {
    shared_cluster_options().scheduler = false;
    shared_cluster_options().kwok = false;
  }

  void SetUp() override {
    ClusterTest::SetUp();
    const testenv::ServingCert cert = testenv::issue_serving_cert(cluster());
    faultproxy::Options o;
    o.upstream_url = cluster().server();
    o.upstream_ca_pem = cluster().ca_pem();
    o.cert_pem = cert.cert_pem;
    o.key_pem = cert.key_pem;
    o.seed = 11;
    proxy_ = std::make_unique<FaultProxy>(o);
  }

  void TearDown() override {
    proxy_.reset();
    ClusterTest::TearDown();
  }

  // Admin configuration pointing at the proxy; the cluster's CA verifies it.
  kube::RestConfig via_proxy() {
    kube::RestConfig c = rest_config(cluster(), cluster().admin_token());
    c.server = proxy_->url();
    return c;
  }
  kube::Client direct() { return kube::Client(rest_config(cluster(), cluster().admin_token())); }
  kube::ResourceRef cms() const { return {kube::core::configmaps(), ns(), "", ""}; }
  static std::string cm(const std::string& name) {
    return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"("},"data":{"k":"v"}})";
  }

  std::unique_ptr<FaultProxy> proxy_;
};

TEST_F(FaultProxyClusterTest, ClientAndKubectlWorkThroughTheProxy) {
  const std::string kubeconfig = cluster().kubeconfig_for(testenv::kAdminUser, proxy_->url());
  kube::KubeconfigOptions ko;
  ko.path = kubeconfig;
  kube::RestConfig config = kube::load_kubeconfig(ko);
  EXPECT_EQ(config.server, proxy_->url());
  config.qps = 0;
  kube::Client client(config);
  const auto version = kube::parse_json(client.request("GET", "/version", "", "", true).body);
  EXPECT_FALSE(kube::string_at(version, {"gitVersion"}).empty());

  client.create(cms(), cm("through-proxy"));
  EXPECT_EQ(kube::string_at(direct().get(cms().with_name("through-proxy")), {"metadata", "name"}), "through-proxy");
  EXPECT_EQ(client.stats().http2_responses.load(), 0u) << "the proxy offers only http/1.1";

  // A discovery cache of its own: kubectl's shared one (keyed by host:port) may hold an
  // earlier proxy's port, and then kubectl would skip discovery through this one.
  const std::string cache = make_temp_dir("kubectl-cache");
  const testenv::CommandResult r = testenv::run_command(
      cluster().kubectl_path(),
      {"--kubeconfig", kubeconfig, "--cache-dir", cache, "-n", ns(), "get", "configmap", "through-proxy", "-o", "name"}, "",
      60s);
  remove_tree(cache);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "configmap/through-proxy\n");
  EXPECT_GE(proxy_->stats().forwarded, 4u) << "/version, the create, and kubectl's discovery and get";
  EXPECT_EQ(proxy_->stats().injected, 0u);
}

TEST_F(FaultProxyClusterTest, WatchEventsFlowOneByOne) {
  kube::Client client(via_proxy());
  const std::string rv = client.list_items(cms(), {}, [](std::string_view) {});
  Recorder rec;
  std::stop_source stop;
  std::thread watcher([&] {
    kube::ListOptions o;
    o.resource_version = rv;
    client.watch_once(cms(), o, std::ref(rec), stop.get_token());
  });
  // Each event arrives on its own while the stream stays open.
  direct().create(cms(), cm("first"));
  wait_for(kDeadline, [&] { return rec.count("first") == 1; }, "the first event through the proxy");
  direct().create(cms(), cm("second"));
  wait_for(kDeadline, [&] { return rec.count("second") == 1; }, "the second event through the proxy");
  stop.request_stop();
  watcher.join();
  EXPECT_EQ(client.stats().watch_reconnects.load(), 0u);
}

TEST_F(FaultProxyClusterTest, CutEndsAWatchMidStreamWithATransferError) {
  kube::Client client(via_proxy());
  const std::string rv = client.list_items(cms(), {}, [](std::string_view) {});
  Recorder rec;
  std::atomic<bool> transfer_error{false};
  std::thread watcher([&] {
    kube::ListOptions o;
    o.resource_version = rv;
    try {
      client.watch_once(cms(), o, std::ref(rec));
    } catch (const kube::TransportError&) {
      transfer_error = true;
    }
  });
  direct().create(cms(), cm("before-cut"));
  wait_for(kDeadline, [&] { return rec.count("before-cut") == 1; }, "the event before the cut");
  EXPECT_GE(proxy_->cut_connections(), 1u);
  watcher.join();
  EXPECT_TRUE(transfer_error) << "watch_once must end with a transport error";
}

TEST_F(FaultProxyClusterTest, ResumableWatchCarriesOnAfterACut) {
  kube::Client client(via_proxy());
  const std::string rv = client.list_items(cms(), {}, [](std::string_view) {});
  Recorder rec;
  std::stop_source stop;
  std::thread watcher([&] {
    kube::ListOptions o;
    o.resource_version = rv;
    client.watch(cms(), o, std::ref(rec), stop.get_token());
  });
  direct().create(cms(), cm("a"));
  wait_for(kDeadline, [&] { return rec.count("a") == 1; }, "the event before the cut");
  EXPECT_GE(proxy_->cut_connections(), 1u);
  direct().create(cms(), cm("b"));
  wait_for(kDeadline, [&] { return rec.count("b") == 1; }, "the event after the cut");
  stop.request_stop();
  watcher.join();
  EXPECT_EQ(rec.count("a"), 1) << "resumed from the last resourceVersion: no event twice";
  EXPECT_GE(client.stats().watch_reconnects.load(), 1u);
}

TEST_F(FaultProxyClusterTest, ClientRetriesInjectedErrorsAndSeesConflicts) {
  kube::Client client(via_proxy());
  client.create(cms(), cm("c"));
  const auto retries_before = client.stats().retries.load();
  proxy_->fail_next(429, 2, {.method = "GET"});
  EXPECT_EQ(kube::string_at(client.get(cms().with_name("c")), {"metadata", "name"}), "c");
  EXPECT_EQ(client.stats().retries.load() - retries_before, 2u);
  EXPECT_EQ(proxy_->stats().injected, 2u);

  proxy_->fail_next(409, 1, {.method = "PUT"});
  auto current = client.get(cms().with_name("c"));
  try {
    client.update(cms().with_name("c"), kube::to_json(current));
    ADD_FAILURE() << "the injected 409 must surface";
  } catch (const kube::ApiError& e) {
    EXPECT_TRUE(e.is_conflict()) << e.what();
  }

  kube::RestConfig impatient = via_proxy();
  impatient.max_retries = 1;
  kube::Client once(impatient);
  proxy_->set_error_share(500, 1.0);
  try {
    once.get(cms().with_name("c"));
    ADD_FAILURE() << "every answer is 500";
  } catch (const kube::ApiError& e) {
    EXPECT_TRUE(e.is_server_error()) << e.what();
  }
  proxy_->reset();
  EXPECT_EQ(kube::string_at(once.get(cms().with_name("c")), {"metadata", "name"}), "c");
}

TEST_F(FaultProxyClusterTest, ClientRidesOutARefusal) {
  kube::Client client(via_proxy());
  client.create(cms(), cm("r"));
  const auto retries_before = client.stats().retries.load();
  proxy_->refuse_for(1s);
  EXPECT_EQ(kube::string_at(client.get(cms().with_name("r")), {"metadata", "name"}), "r");
  EXPECT_GE(client.stats().retries.load() - retries_before, 1u) << "the first attempts were refused";
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

TEST_F(FaultProxyClusterTest, ExecutableIsDrivenThroughItsControlPort) {
  proxy_.reset();
  const std::string dir = make_temp_dir("faultproxy");
  const testenv::ServingCert cert = testenv::issue_serving_cert(cluster());
  write_text(dir + "/proxy.crt", cert.cert_pem);
  write_text(dir + "/proxy.key", cert.key_pem);
  testenv::SpawnSpec spec;
  spec.path = GPUPOOL_FAULTPROXY_BIN;
  spec.args = {"--upstream", cluster().server(), "--upstream-ca", cluster().ca_file(), "--cert", dir + "/proxy.crt",
               "--key", dir + "/proxy.key", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0", "--seed", "3"};
  spec.log_file = dir + "/proxy.log";
  testenv::Process process = testenv::Process::spawn(spec);

  // "listening https://127.0.0.1:P control http://127.0.0.1:Q"
  std::string url, control;
  wait_for(kDeadline, [&] {
    std::istringstream log(read_text(spec.log_file));
    for (std::string word; log >> word;) {
      if (word == "listening") log >> url;
      if (word == "control") log >> control;
    }
    return !url.empty() && !control.empty();
  }, "the proxy to print its addresses");

  auto control_http = kube::make_curl_transport(kube::RestConfig{});
  auto call = [&](const std::string& path) { return control_http->send({"POST", control + path, {}, "", 10s}); };
  kube::RestConfig config = rest_config(cluster(), cluster().admin_token());
  config.server = url;
  config.max_retries = 0;
  kube::Client client(config);
  EXPECT_NO_THROW(client.request("GET", "/version", "", "", true));

  EXPECT_EQ(call("/errors?status=503&share=1").status, 200);
  try {
    client.request("GET", "/version", "", "", true);
    ADD_FAILURE() << "every answer is 503";
  } catch (const kube::ApiError& e) {
    EXPECT_EQ(e.code(), 503);
  }
  EXPECT_EQ(call("/reset").status, 200);
  EXPECT_NO_THROW(client.request("GET", "/version", "", "", true));
  const auto stats = control_http->send({"GET", control + "/stats", {}, "", 10s});
  EXPECT_NE(stats.body.find(R"("injected":1)"), std::string::npos) << stats.body;

  EXPECT_EQ(process.terminate(10s), 0) << read_text(spec.log_file);
  remove_tree(dir);
}

}  // namespace
}  // namespace gpupool::test
