// Watches against a real kube-apiserver: ordered events and bookmarks, resume
// from the last resourceVersion across an apiserver restart, and 410 Gone
// (forced by etcd compaction) signalled so the caller relists.
//
// This binary runs its own control plane with the apiserver's watch cache off:
// watches are then served from etcd, so a watch resumed after a restart
// continues from its resourceVersion instead of being answered 410 by a fresh
// cache.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "gpupool/kube/client.h"
#include "support/kube_test_helpers.h"

namespace gpupool::kube {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<testenv::ControlPlane> g_cluster;

class KubeWatchTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    testenv::Options o;
    o.scheduler = false;
    o.kwok = false;
    o.extra_apiserver_flags = {"--watch-cache=false"};
    g_cluster = testenv::ControlPlane::start(o);
  }
  static void TearDownTestSuite() { g_cluster.reset(); }

  void SetUp() override {
    ns_ = "watch-" + std::to_string(++counter_);
    admin().create({core::namespaces(), "", "", ""},
                   R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + ns_ + R"("}})");
  }

  Client admin() { return Client(test::rest_config(*g_cluster, g_cluster->admin_token())); }
  ResourceRef cms() const { return {core::configmaps(), ns_, "", ""}; }
  std::string cm(const std::string& name, const std::string& value = "v") {
    return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"("},"data":{"k":")" + value + R"("}})";
  }

  std::string ns_;
  static inline int counter_ = 0;
};

// Records events from a watch running in a thread.
struct Recorder {
  std::mutex mu;
  std::vector<std::pair<WatchEventType, std::string>> events;  // type, name
  int bookmarks = 0;

  bool operator()(const WatchEvent& ev) {
    std::lock_guard lock(mu);
    if (ev.type == WatchEventType::Bookmark) {
      ++bookmarks;
      return true;
    }
    events.emplace_back(ev.type, string_at(parse_json(ev.object), {"metadata", "name"}));
    return true;
  }
  int count(WatchEventType type, const std::string& name) {
    std::lock_guard lock(mu);
    int n = 0;
    for (const auto& [t, nm] : events) n += (t == type && nm == name);
    return n;
  }
};

TEST_F(KubeWatchTest, DeliversEventsInOrder) {
  Client c = admin();
  std::string rv = c.list_items(cms(), {}, [](std::string_view) {});
  Recorder rec;
  std::stop_source stop;
  WatchResult result{};
  std::thread watcher([&] {
    ListOptions o;
    o.resource_version = rv;
    o.allow_watch_bookmarks = true;
    result = c.watch(cms(), o, std::ref(rec), stop.get_token());
  });
  c.create(cms(), cm("a", "1"));
  c.patch(cms().with_name("a"), PatchType::MergePatch, R"({"data":{"k":"2"}})");
  c.remove(cms().with_name("a"));
  test::wait_for(30s, [&] { return rec.count(WatchEventType::Deleted, "a") == 1; }, "DELETED a");
  stop.request_stop();
  watcher.join();
  EXPECT_EQ(result.end, WatchEnd::Stopped);
  std::lock_guard lock(rec.mu);
  std::vector<WatchEventType> types;
  for (const auto& [t, name] : rec.events) {
    if (name == "a") types.push_back(t);
  }
  EXPECT_EQ(types, (std::vector<WatchEventType>{WatchEventType::Added, WatchEventType::Modified, WatchEventType::Deleted}));
}

TEST_F(KubeWatchTest, HandlerCanStopTheWatch) {
  Client c = admin();
  std::string rv = c.list_items(cms(), {}, [](std::string_view) {});
  c.create(cms(), cm("x"));
  ListOptions o;
  o.resource_version = rv;
  int seen = 0;
  auto r = c.watch(cms(), o, [&](const WatchEvent&) { return ++seen < 1; });
  EXPECT_EQ(r.end, WatchEnd::Stopped);
  EXPECT_EQ(seen, 1);
  EXPECT_FALSE(r.last_resource_version.empty());
}

TEST_F(KubeWatchTest, ResumesFromLastResourceVersionAfterApiserverRestart) {
  Client c = admin();
  std::string rv = c.list_items(cms(), {}, [](std::string_view) {});
  Recorder rec;
  std::stop_source stop;
  WatchResult result{};
  std::thread watcher([&] {
    ListOptions o;
    o.resource_version = rv;
    result = c.watch(cms(), o, std::ref(rec), stop.get_token());
  });
  c.create(cms(), cm("before"));
  test::wait_for(30s, [&] { return rec.count(WatchEventType::Added, "before") == 1; }, "ADDED before");
  uint64_t reconnects_before = c.stats().watch_reconnects.load();

  g_cluster->restart_apiserver();
  c.create(cms(), cm("after"));
  c.patch(cms().with_name("before"), PatchType::MergePatch, R"({"data":{"k":"changed"}})");
  test::wait_for(60s, [&] { return rec.count(WatchEventType::Modified, "before") == 1; }, "MODIFIED before after restart");
  stop.request_stop();
  watcher.join();

  EXPECT_EQ(result.end, WatchEnd::Stopped) << "the watch resumed rather than asking for a relist";
  EXPECT_GT(c.stats().watch_reconnects.load(), reconnects_before);
  EXPECT_EQ(rec.count(WatchEventType::Added, "before"), 1) << "no event is delivered twice after resuming";
  EXPECT_EQ(rec.count(WatchEventType::Added, "after"), 1) << "no event is lost across the restart";
}

TEST_F(KubeWatchTest, CompactedResourceVersionIsGoneAndRelistRecovers) {
  Client c = admin();
  std::string old_rv = c.list_items(cms(), {}, [](std::string_view) {});
  c.create(cms(), cm("one"));
  for (int i = 0; i < 5; ++i) c.patch(cms().with_name("one"), PatchType::MergePatch, R"({"data":{"k":")" + std::to_string(i) + R"("}})");
  g_cluster->compact_etcd();

  ListOptions o;
  o.resource_version = old_rv;
  try {
    c.watch_once(cms(), o, [](const WatchEvent&) { return true; });
    FAIL() << "watch from a compacted resourceVersion did not fail";
  } catch (const ApiError& e) {
    EXPECT_TRUE(e.is_gone()) << e.what();
  }
  auto r = c.watch(cms(), o, [](const WatchEvent&) { return true; });
  EXPECT_EQ(r.end, WatchEnd::Gone);

  // Relist, then watch from the new resourceVersion: current state, then new events.
  int listed = 0;
  std::string new_rv = c.list_items(cms(), {}, [&](std::string_view item) {
    listed += string_at(parse_json(item), {"metadata", "name"}) == "one";
  });
  EXPECT_EQ(listed, 1);
  c.create(cms(), cm("two"));
  ListOptions fresh;
  fresh.resource_version = new_rv;
  std::string first_added;
  auto r2 = c.watch(cms(), fresh, [&](const WatchEvent& ev) {
    if (ev.type == WatchEventType::Added) first_added = string_at(parse_json(ev.object), {"metadata", "name"});
    return first_added.empty();
  });
  EXPECT_EQ(r2.end, WatchEnd::Stopped);
  EXPECT_EQ(first_added, "two");
}

TEST_F(KubeWatchTest, ServerTimeoutEndsStreamAndWatchContinues) {
  Client c = admin();
  std::string rv = c.list_items(cms(), {}, [](std::string_view) {});
  ListOptions once;
  once.resource_version = rv;
  once.timeout_seconds = 1;
  auto r = c.watch_once(cms(), once, [](const WatchEvent&) { return true; });
  EXPECT_EQ(r.end, WatchEnd::Closed) << "the server closes the stream after timeoutSeconds";

  Recorder rec;
  std::stop_source stop;
  std::thread watcher([&] { c.watch(cms(), once, std::ref(rec), stop.get_token()); });
  test::wait_for(20s, [&] { return c.stats().watch_reconnects.load() >= 2; }, "two server-side timeouts");
  c.create(cms(), cm("late"));
  test::wait_for(20s, [&] { return rec.count(WatchEventType::Added, "late") == 1; }, "ADDED late after timeouts");
  stop.request_stop();
  watcher.join();
}

}  // namespace
}  // namespace gpupool::kube
