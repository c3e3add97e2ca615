// The informer under faults against a real control plane: random creates,
// updates and deletes (a fixed seed) interleaved with cut watch connections
// (fault proxy), a window of refused connections during which objects are
// deleted and etcd is compacted (so the informer must relist on 410 and find
// the deletes it missed), and a restart of kube-apiserver. At the end the
// store equals the server's state and every delete was delivered.
//
// The apiserver runs with --watch-cache=false so that compaction makes old
// resourceVersions answer 410 at once.
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <random>
#include <set>

#include "gpupool/faultproxy/fault_proxy.h"
#include "gpupool/runtime/informer.h"
#include "gpupool/testenv/serving_cert.h"
#include "support/kube_test_helpers.h"

namespace gpupool::runtime {
namespace {

using namespace std::chrono_literals;

constexpr const char* kNs = "fuzz";

class InformerFaultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testenv::Options o;
    o.controller_manager = false;  // nothing else may write ConfigMaps here (kube-root-ca.crt)
    o.scheduler = false;
    o.kwok = false;
    o.extra_apiserver_flags = {"--watch-cache=false"};
    cluster_ = testenv::ControlPlane::start(o);
    auto cert = testenv::issue_serving_cert(*cluster_);
    faultproxy::Options po;
    po.upstream_url = cluster_->server();
    po.upstream_ca_pem = cluster_->ca_pem();
    po.cert_pem = cert.cert_pem;
    po.key_pem = cert.key_pem;
    po.seed = 7;
    proxy_ = std::make_unique<faultproxy::FaultProxy>(po);
    direct_ = std::make_unique<kube::Client>(test::rest_config(*cluster_, cluster_->admin_token()));
    direct_->create({kube::core::namespaces(), "", "", ""}, R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":"fuzz"}})");
  }
  void TearDown() override {
    proxy_.reset();
    cluster_.reset();
  }

  kube::ResourceRef cms() const { return {kube::core::configmaps(), kNs, "", ""}; }

  // The server's state: name -> resourceVersion.
  std::map<std::string, std::string> server_state() {
    std::map<std::string, std::string> out;
    direct_->list_items(cms(), {}, [&](std::string_view item) {
      auto o = kube::decode_object(item);
      out[o.name] = o.resource_version;
    });
    return out;
  }

  std::unique_ptr<testenv::ControlPlane> cluster_;
  std::unique_ptr<faultproxy::FaultProxy> proxy_;
  std::unique_ptr<kube::Client> direct_;
};

TEST_F(InformerFaultsTest, StoreConvergesAndEveryDeleteIsDelivered) {
  kube::RestConfig via_proxy = test::rest_config(*cluster_, cluster_->admin_token());
  via_proxy.server = proxy_->url();
  kube::Client client(via_proxy);
  Informer<kube::Object> informer(client, cms());
  std::mutex mu;
  std::map<std::string, std::string> last_event;  // name -> "add" | "update" | "delete"
  EventHandler<kube::Object> h;
  h.on_add = [&](const auto& o) {
    std::lock_guard lock(mu);
    last_event[o->name] = "add";
  };
  h.on_update = [&](const auto&, const auto& o) {
    std::lock_guard lock(mu);
    last_event[o->name] = "update";
  };
  h.on_delete = [&](const auto& o) {
    std::lock_guard lock(mu);
    last_event[o->name] = "delete";
  };
  informer.add_handler(h);
  std::jthread runner([&](std::stop_token stop) { informer.run(stop); });
  test::wait_for(30s, [&] { return informer.has_synced(); }, "first sync");
  EXPECT_EQ(informer.stats().streamed_lists.load(), 1u) << "kube-apiserver streams the initial list (watch-list), "
                                                           "from etcd here since its watch cache is off";

  std::mt19937 rng(42);
  std::set<std::string> exists;
  auto random_op = [&] {
    std::string name = "cm-" + std::to_string(std::uniform_int_distribution<int>(0, 29)(rng));
    int kind = std::uniform_int_distribution<int>(0, 2)(rng);
    if (!exists.count(name)) {
      direct_->create(cms(), R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"("},"data":{"v":"0"}})");
      exists.insert(name);
    } else if (kind == 0) {
      direct_->remove(cms().with_name(name));
      exists.erase(name);
    } else {
      direct_->patch(cms().with_name(name), kube::PatchType::MergePatch,
                     R"({"data":{"v":")" + std::to_string(rng() % 1000) + R"("}})");
    }
  };

  uint64_t lists_before = informer.stats().lists.load();
  for (int i = 0; i < 240; ++i) {
    random_op();
    if (i % 40 == 20) proxy_->cut_connections();  // the watch drops mid-stream; resume from the last resourceVersion
    if (i == 100) {
      // Away long enough to miss deletes, and the history it would resume from is compacted.
      proxy_->refuse_for(3s);
      for (int k = 0; k < 12; ++k) random_op();
      for (auto it = exists.begin(); it != exists.end() && std::distance(exists.begin(), it) < 5;) {
        direct_->remove(cms().with_name(*it));
        it = exists.erase(it);
      }
      cluster_->compact_etcd();
    }
    if (i == 180) cluster_->restart_apiserver();
  }

  auto expected = server_state();
  EXPECT_EQ(expected.size(), exists.size());
  test::wait_for(60s, [&] {
    auto objs = informer.store().list();
    if (objs.size() != expected.size()) return false;
    for (const auto& o : objs) {
      auto it = expected.find(o->name);
      if (it == expected.end() || it->second != o->resource_version) return false;
    }
    return true;
  }, "the store to equal the server's state");

  {
    std::lock_guard lock(mu);
    for (const auto& [name, event] : last_event) {
      if (expected.count(name)) {
        EXPECT_NE(event, "delete") << name << " exists but its last event was a delete";
      } else {
        EXPECT_EQ(event, "delete") << name << " is gone but its delete was never delivered";
      }
    }
  }
  EXPECT_GT(informer.stats().lists.load(), lists_before) << "the compaction forced a relist";
  EXPECT_GT(informer.stats().deletes_found_by_relist.load(), 0u) << "deletes missed while away were found at relist";
  EXPECT_GT(client.stats().watch_reconnects.load(), 0u);
  EXPECT_GT(proxy_->stats().cut, 0u);
  runner.request_stop();
}

}  // namespace
}  // namespace gpupool::runtime
