// The informer against a scripted server: list, watch, 410 and relist, and
// what the handlers and the store see.
#include "gpupool/runtime/informer.h"

#include <gtest/gtest.h>

#include "gpupool/testenv/wait.h"
#include "support/scripted_server.h"

namespace gpupool::runtime {
namespace {

using namespace std::chrono_literals;
using test::ScriptedServer;
using test::Step;

std::string pod(const std::string& name, const std::string& rv, const std::string& node = "",
                const std::string& ns = "ns") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" + ns +
         R"(","uid":"uid-)" + name + R"(","resourceVersion":")" + rv + R"("},"spec":{"nodeName":")" + node +
         R"(","containers":[{"name":"c","image":"x","resources":{"requests":{"nvidia.com/gpu":"1"}}}]},"status":{"phase":"Running"}})";
}

Step list_step(const std::string& rv, const std::vector<std::string>& items) {
  std::string body = R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":")" + rv + R"("},"items":[)";
  for (size_t i = 0; i < items.size(); ++i) body += (i ? "," : "") + items[i];
  Step s = test::json_step(200, body + "]}");
  s.query_contains = "limit=";
  return s;
}

Step watch_step(std::vector<std::string> events, bool hold = false) {
  Step s;
  s.query_contains = "watch=1";
  s.chunks = std::move(events);
  s.hold_open = hold;
  return s;
}

kube::RestConfig config_for(const ScriptedServer& server) {
  kube::RestConfig c;
  c.server = server.url();
  c.qps = 0;
  c.timeout = 5s;
  return c;
}

// Records what handlers saw, thread-safely.
template <class T>
struct Recorder {
  std::mutex mu;
  std::vector<std::string> log;
  EventHandler<T> handler() {
    EventHandler<T> h;
    h.on_add = [this](const auto& o) { push("add " + Codec<T>::key(*o)); };
    h.on_update = [this](const auto& a, const auto& b) {
      push("update " + Codec<T>::key(*b) + " " + Codec<T>::resource_version(*a) + "->" + Codec<T>::resource_version(*b));
    };
    h.on_delete = [this](const auto& o) { push("delete " + Codec<T>::key(*o)); };
    return h;
  }
  void push(std::string s) {
    std::lock_guard lock(mu);
    log.push_back(std::move(s));
  }
  size_t size() {
    std::lock_guard lock(mu);
    return log.size();
  }
  std::vector<std::string> snapshot() {
    std::lock_guard lock(mu);
    return log;
  }
};

// The tests of list semantics script a paginated list (the streaming list
// has its own tests below).
InformerOptions paginated() {
  InformerOptions o;
  o.initial_list = InitialList::paginated;
  return o;
}

// Polls with the shared helper (no fixed sleeps).
bool eventually(const std::function<bool()>& cond) { return testenv::wait_until(cond, 10s); }

TEST(Informer, ListWatchGoneRelistDeliversMissedDeletes) {
  ScriptedServer server;
  server.enqueue(list_step("10", {pod("a", "1"), pod("b", "2")}));
  server.enqueue(watch_step({test::watch_event_json("ADDED", pod("c", "11")), test::watch_event_json("MODIFIED", pod("a", "12")),
                             test::watch_event_json("DELETED", pod("b", "13")),
                             test::watch_event_json("ERROR", test::status_json(410, "Expired", "too old resource version"))}));
  // While the informer was away, c was deleted and d created; a is unchanged.
  server.enqueue(list_step("20", {pod("a", "12"), pod("d", "19")}));
  server.enqueue(watch_step({test::watch_event_json("MODIFIED", pod("d", "21"))}, true));

  kube::Client client(config_for(server));
  Informer<kube::Object> informer(client, {kube::core::pods(), "ns", "", ""}, paginated());
  Recorder<kube::Object> rec;
  informer.add_handler(rec.handler());
  std::jthread runner([&](std::stop_token stop) { informer.run(stop); });
  ASSERT_TRUE(eventually([&] { return rec.size() >= 8; })) << ::testing::PrintToString(rec.snapshot());
  runner.request_stop();
  server.release();
  runner.join();

  EXPECT_EQ(rec.snapshot(), (std::vector<std::string>{"add ns/a", "add ns/b", "add ns/c", "update ns/a 1->12", "delete ns/b",
                                                      "delete ns/c", "add ns/d", "update ns/d 19->21"}))
      << "the relist delivers c's delete, adds d and stays silent about the unchanged a";
  EXPECT_EQ(informer.store().size(), 2u);
  EXPECT_EQ(informer.store().get("ns/d")->resource_version, "21");
  EXPECT_EQ(informer.stats().lists.load(), 2u);
  EXPECT_EQ(informer.stats().deletes_found_by_relist.load(), 1u);
  // The second watch starts from the relist's resourceVersion.
  auto reqs = server.requests();
  ASSERT_GE(reqs.size(), 4u);
  EXPECT_NE(reqs[1].query.find("resourceVersion=10"), std::string::npos);
  EXPECT_NE(reqs[1].query.find("allowWatchBookmarks=true"), std::string::npos);
  EXPECT_NE(reqs[3].query.find("resourceVersion=20"), std::string::npos);
}

TEST(Informer, PodProjectionStoreWithNodeIndex) {
  ScriptedServer server;
  server.enqueue(list_step("5", {pod("p1", "1", "node-a"), pod("p2", "2", "node-b"), pod("p3", "3", "node-a")}));
  server.enqueue(watch_step({test::watch_event_json("MODIFIED", pod("p2", "6", "node-a"))}, true));
  kube::Client client(config_for(server));
  Informer<kube::PodProjection> informer(client, {kube::core::pods(), "", "", ""}, paginated());
  informer.store().add_index("node", [](const kube::PodProjection& p) {
    return p.node_name.empty() ? std::vector<std::string>{} : std::vector<std::string>{p.node_name};
  });
  Recorder<kube::PodProjection> rec;
  informer.add_handler(rec.handler());
  std::jthread runner([&](std::stop_token stop) { informer.run(stop); });
  ASSERT_TRUE(eventually([&] { return rec.size() == 4; }));
  runner.request_stop();
  server.release();
  runner.join();
  EXPECT_EQ(informer.store().by_index("node", "node-a").size(), 3u);
  EXPECT_TRUE(informer.store().by_index("node", "node-b").empty()) << "the index follows updates";
  auto p1 = informer.store().get("ns/p1");
  ASSERT_TRUE(p1);
  EXPECT_EQ(p1->phase, kube::PodPhase::running);
  EXPECT_EQ(p1->containers.at(0).requests, (kube::PodProjection::Quantities{{"nvidia.com/gpu", "1"}}));
}

TEST(Informer, UndecodableObjectsAreSkippedNotFatal) {
  ScriptedServer server;
  server.enqueue(list_step("5", {pod("good", "1"), R"({"kind":"Pod","metadata":{"namespace":"ns"}})"}));
  server.enqueue(watch_step({test::watch_event_json("ADDED", R"({"kind":"Pod","metadata":7})"),
                             test::watch_event_json("ADDED", pod("later", "7"))}, true));
  kube::Client client(config_for(server));
  Informer<kube::Object> informer(client, {kube::core::pods(), "ns", "", ""}, paginated());
  std::jthread runner([&](std::stop_token stop) { informer.run(stop); });
  ASSERT_TRUE(eventually([&] { return informer.store().size() == 2; }));
  runner.request_stop();
  server.release();
  runner.join();
  EXPECT_TRUE(informer.store().get("ns/good"));
  EXPECT_TRUE(informer.store().get("ns/later"));
  EXPECT_EQ(informer.stats().decode_failures.load(), 2u);
}

TEST(Informer, LateHandlerSeesCurrentObjectsAsAdds) {
  ScriptedServer server;
  server.enqueue(list_step("5", {pod("a", "1"), pod("b", "2")}));
  server.enqueue(watch_step({}, true));
  kube::Client client(config_for(server));
  Informer<kube::Object> informer(client, {kube::core::pods(), "ns", "", ""}, paginated());
  std::jthread runner([&](std::stop_token stop) { informer.run(stop); });
  ASSERT_TRUE(eventually([&] { return informer.has_synced(); }));
  Recorder<kube::Object> rec;
  informer.add_handler(rec.handler());
  auto log = rec.snapshot();
  std::sort(log.begin(), log.end());
  EXPECT_EQ(log, (std::vector<std::string>{"add ns/a", "add ns/b"}));
  runner.request_stop();
  server.release();
  runner.join();
}

TEST(Informer, ResyncRedeliversEveryObject) {
  ScriptedServer server;
  server.enqueue(list_step("5", {pod("a", "1")}));
  server.enqueue(watch_step({}, true));
  kube::Client client(config_for(server));
  InformerOptions opts = paginated();
  opts.resync = 50ms;
  Informer<kube::Object> informer(client, {kube::core::pods(), "ns", "", ""}, opts);
  Recorder<kube::Object> rec;
  informer.add_handler(rec.handler());
  std::jthread runner([&](std::stop_token stop) { informer.run(stop); });
  ASSERT_TRUE(eventually([&] { return rec.size() >= 3; }));
  runner.request_stop();
  server.release();
  runner.join();
  auto log = rec.snapshot();
  EXPECT_EQ(log.at(0), "add ns/a");
  EXPECT_EQ(log.at(1), "update ns/a 1->1");
}

std::string cpu_pod(const std::string& name, const std::string& rv) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":"ns","resourceVersion":")" + rv +
         R"("},"spec":{"containers":[{"name":"c","image":"x","resources":{"requests":{"cpu":"1"}}}]}})";
}

TEST(Informer, FilterKeepsOnlyMatchingObjectsAndDeletesOnesThatStopMatching) {
  ScriptedServer server;
  server.enqueue(list_step("5", {pod("gpu", "1"), cpu_pod("cpu", "2"), pod("later-cpu", "3")}));
  // later-cpu stops matching (delivered as deleted); cpu2 never matches; gpu2 is added; cpu's delete is not delivered.
  server.enqueue(watch_step({test::watch_event_json("MODIFIED", cpu_pod("later-cpu", "6")),
                             test::watch_event_json("ADDED", cpu_pod("cpu2", "7")),
                             test::watch_event_json("DELETED", cpu_pod("cpu", "8")),
                             test::watch_event_json("ADDED", pod("gpu2", "9"))},
                            true));
  kube::Client client(config_for(server));
  InformerFilter<kube::PodProjection> gpu{"gpu", [](const kube::PodProjection& p) {
                                            return !p.containers.empty() && kube::find_quantity(p.containers[0].requests, "nvidia.com/gpu");
                                          }, {}};
  Informer<kube::PodProjection> informer(client, {kube::core::pods(), "", "", ""}, paginated(), gpu);
  Recorder<kube::PodProjection> rec;
  informer.add_handler(rec.handler());
  std::jthread runner([&](std::stop_token stop) { informer.run(stop); });
  ASSERT_TRUE(eventually([&] { return rec.size() >= 4; })) << ::testing::PrintToString(rec.snapshot());
  runner.request_stop();
  server.release();
  runner.join();
  EXPECT_EQ(rec.snapshot(), (std::vector<std::string>{"add ns/gpu", "add ns/later-cpu", "delete ns/later-cpu", "add ns/gpu2"}));
  auto keys = informer.store().keys();
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"ns/gpu", "ns/gpu2"}));
  EXPECT_EQ(informer.stats().filtered_out.load(), 3u) << "cpu (listed), later-cpu's update, cpu2";
}

std::string managed_pod(const std::string& name, const std::string& rv) {
  return R"({"metadata":{"name":")" + name + R"(","namespace":"ns","resourceVersion":")" + rv +
         R"(","managedFields":[{"manager":"kubectl","operation":"Update","fieldsV1":{"f:spec":{}}}]},"spec":{}})";
}

TEST(Informer, FilterDecodeShapesWhatIsStoredFromListsAndEvents) {
  ScriptedServer server;
  server.enqueue(list_step("5", {managed_pod("listed", "1")}));
  server.enqueue(watch_step({test::watch_event_json("ADDED", managed_pod("watched", "6"))}, true));
  kube::Client client(config_for(server));
  InformerFilter<kube::Object> lean{"lean", {}, [](std::string_view json) {
                                      return kube::decode_object(json, kube::DecodeTrim{true, "", {}, {}, {}, {}});
                                    }};
  Informer<kube::Object> informer(client, {kube::core::pods(), "", "", ""}, paginated(), lean);
  std::jthread runner([&](std::stop_token stop) { informer.run(stop); });
  ASSERT_TRUE(eventually([&] { return informer.store().get("ns/watched") != nullptr; }));
  runner.request_stop();
  server.release();
  runner.join();
  for (const char* key : {"ns/listed", "ns/watched"}) {
    auto stored = informer.store().get(key);
    ASSERT_TRUE(stored) << key;
    EXPECT_EQ(kube::to_json(stored->doc["metadata"]).find("managedFields"), std::string::npos) << key;
    EXPECT_TRUE(stored->doc.HasMember("spec")) << key;
  }
}

// The bookmark that ends a streaming list's initial events.
std::string initial_events_end(const std::string& rv) {
  return test::watch_event_json("BOOKMARK", R"({"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":")" + rv +
                                                R"(","annotations":{"k8s.io/initial-events-end":"true"}}})");
}

Step stream_step(std::vector<std::string> events, bool hold = false) {
  Step s = watch_step(std::move(events), hold);
  s.query_contains = "sendInitialEvents=true";
  return s;
}

// Runs `informer` until its handlers saw `n` events (10 s at most), then
// stops it and ends the server's held streams; false when too few came.
template <class T>
bool run_until_seen(Informer<T>& informer, Recorder<T>& rec, ScriptedServer& server, std::size_t n) {
  std::jthread runner([&](std::stop_token stop) { informer.run(stop); });
  const bool seen = eventually([&] { return rec.size() >= n; });
  runner.request_stop();
  server.release();
  runner.join();
  return seen;
}

TEST(Informer, StreamingListTakesTheStateAtTheBookmarkAndWatchesOnTheSameStream) {
  ScriptedServer server;
  // An ordinary bookmark before the end is not the end.
  server.enqueue(stream_step({test::watch_event_json("ADDED", pod("a", "1")),
                              test::watch_event_json("BOOKMARK", R"({"kind":"Pod","metadata":{"resourceVersion":"9"}})"),
                              test::watch_event_json("ADDED", pod("c", "3")), initial_events_end("10"),
                              test::watch_event_json("MODIFIED", pod("a", "11"))}));
  // The server closed that stream: the watch resumes where it stopped, not with another list.
  server.enqueue(watch_step({test::watch_event_json("DELETED", pod("c", "12"))}, true));
  kube::Client client(config_for(server));
  Informer<kube::Object> informer(client, {kube::core::pods(), "ns", "", ""});
  Recorder<kube::Object> rec;
  informer.add_handler(rec.handler());
  ASSERT_TRUE(run_until_seen(informer, rec, server, 4)) << ::testing::PrintToString(rec.snapshot());

  EXPECT_EQ(rec.snapshot(), (std::vector<std::string>{"add ns/a", "add ns/c", "update ns/a 1->11", "delete ns/c"}));
  EXPECT_EQ(informer.store().size(), 1u);
  EXPECT_EQ(informer.stats().lists.load(), 1u);
  EXPECT_EQ(informer.stats().streamed_lists.load(), 1u);
  auto reqs = server.requests();
  ASSERT_GE(reqs.size(), 2u);
  EXPECT_NE(reqs[0].query.find("watch=1"), std::string::npos) << reqs[0].query;
  EXPECT_NE(reqs[0].query.find("resourceVersionMatch=NotOlderThan"), std::string::npos) << reqs[0].query;
  EXPECT_NE(reqs[0].query.find("allowWatchBookmarks=true"), std::string::npos) << reqs[0].query;
  EXPECT_EQ(reqs[0].query.find("resourceVersion="), std::string::npos)
      << "no resourceVersion: consistent with the time of the request: " << reqs[0].query;
  EXPECT_EQ(reqs[1].query.find("sendInitialEvents"), std::string::npos) << reqs[1].query;
  EXPECT_NE(reqs[1].query.find("resourceVersion=11"), std::string::npos) << reqs[1].query;
  for (const auto& r : reqs) EXPECT_EQ(r.query.find("limit="), std::string::npos) << "no list request: " << r.query;
}

TEST(Informer, AStreamThatBreaksBeforeItsEndIsFollowedByAPaginatedList) {
  ScriptedServer server;
  // Nothing of a stream that ends before its initial events do may reach the
  // store or the handlers (b is in it, not in the list).
  server.enqueue(stream_step({test::watch_event_json("ADDED", pod("a", "1")), test::watch_event_json("ADDED", pod("b", "2"))}));
  server.enqueue(list_step("8", {pod("a", "1")}));
  server.enqueue(watch_step({test::watch_event_json("ADDED", pod("d", "9"))}, true));
  kube::Client client(config_for(server));
  Informer<kube::Object> informer(client, {kube::core::pods(), "ns", "", ""});
  Recorder<kube::Object> rec;
  informer.add_handler(rec.handler());
  ASSERT_TRUE(run_until_seen(informer, rec, server, 2)) << ::testing::PrintToString(rec.snapshot());
  EXPECT_EQ(rec.snapshot(), (std::vector<std::string>{"add ns/a", "add ns/d"}));
  EXPECT_EQ(informer.stats().streamed_lists.load(), 0u);
  auto reqs = server.requests();
  ASSERT_GE(reqs.size(), 3u);
  EXPECT_NE(reqs[1].query.find("limit=500"), std::string::npos) << reqs[1].query;
  EXPECT_NE(reqs[2].query.find("resourceVersion=8"), std::string::npos) << reqs[2].query;
}

TEST(Informer, AStreamCutAfterItsInitialEventsIsResumedNotListedAgain) {
  ScriptedServer server;
  const std::vector<std::string> events{test::watch_event_json("ADDED", pod("a", "1")), initial_events_end("10"),
                                        test::watch_event_json("MODIFIED", pod("a", "11"))};
  Step cut = stream_step(events);
  cut.cut_after_bytes = events[0].size() + events[1].size() + 10;  // mid-way through the third event
  server.enqueue(cut);
  server.enqueue(watch_step({test::watch_event_json("MODIFIED", pod("a", "11"))}, true));
  kube::Client client(config_for(server));
  Informer<kube::Object> informer(client, {kube::core::pods(), "ns", "", ""});
  Recorder<kube::Object> rec;
  informer.add_handler(rec.handler());
  ASSERT_TRUE(run_until_seen(informer, rec, server, 2)) << ::testing::PrintToString(rec.snapshot());
  EXPECT_EQ(rec.snapshot(), (std::vector<std::string>{"add ns/a", "update ns/a 1->11"}));
  EXPECT_EQ(informer.stats().lists.load(), 1u);
  auto reqs = server.requests();
  ASSERT_GE(reqs.size(), 2u);
  EXPECT_EQ(reqs[1].query.find("sendInitialEvents"), std::string::npos) << reqs[1].query;
  EXPECT_NE(reqs[1].query.find("resourceVersion=10"), std::string::npos) << reqs[1].query;
}

TEST(Informer, AServerThatRefusesStreamingListsIsListedInPagesFromThenOn) {
  ScriptedServer server;
  // kube-apiserver 1.33, WatchList off: 422 Invalid.
  Step refused = test::status_step(422, "Invalid", "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled");
  refused.query_contains = "sendInitialEvents=true";
  server.enqueue(refused);
  server.enqueue(list_step("10", {pod("a", "1")}));
  server.enqueue(watch_step({test::watch_event_json("ERROR", test::status_json(410, "Expired", "too old resource version"))}));
  server.enqueue(list_step("20", {pod("b", "15")}));
  server.enqueue(watch_step({}, true));
  kube::Client client(config_for(server));
  Informer<kube::Object> informer(client, {kube::core::pods(), "ns", "", ""});
  Recorder<kube::Object> rec;
  informer.add_handler(rec.handler());
  ASSERT_TRUE(run_until_seen(informer, rec, server, 3)) << ::testing::PrintToString(rec.snapshot());
  EXPECT_EQ(rec.snapshot(), (std::vector<std::string>{"add ns/a", "delete ns/a", "add ns/b"}));
  EXPECT_EQ(informer.stats().lists.load(), 2u);
  EXPECT_EQ(informer.stats().streamed_lists.load(), 0u);
  auto reqs = server.requests();
  ASSERT_GE(reqs.size(), 4u);
  EXPECT_NE(reqs[1].query.find("limit=500"), std::string::npos) << reqs[1].query;
  EXPECT_NE(reqs[3].query.find("limit=500"), std::string::npos) << "after 410 it lists again, not streams: " << reqs[3].query;
}

TEST(Informer, AfterGoneTheStreamingListDeliversWhatChangedMeanwhile) {
  ScriptedServer server;
  server.enqueue(stream_step({test::watch_event_json("ADDED", pod("a", "1")), test::watch_event_json("ADDED", pod("b", "2")),
                              initial_events_end("5"),
                              test::watch_event_json("ERROR", test::status_json(410, "Expired", "too old resource version"))}));
  server.enqueue(stream_step({test::watch_event_json("ADDED", pod("a", "1")), test::watch_event_json("ADDED", pod("d", "19")),
                              initial_events_end("20")},
                             true));
  kube::Client client(config_for(server));
  Informer<kube::Object> informer(client, {kube::core::pods(), "ns", "", ""});
  Recorder<kube::Object> rec;
  informer.add_handler(rec.handler());
  ASSERT_TRUE(run_until_seen(informer, rec, server, 4)) << ::testing::PrintToString(rec.snapshot());
  EXPECT_EQ(rec.snapshot(), (std::vector<std::string>{"add ns/a", "add ns/b", "delete ns/b", "add ns/d"}))
      << "b's delete, missed while away, is found; the unchanged a stays silent";
  EXPECT_EQ(informer.stats().deletes_found_by_relist.load(), 1u);
  EXPECT_EQ(informer.stats().streamed_lists.load(), 2u);
}

TEST(Informer, AStreamingListThatRepeatsOrTakesBackAKeyEndsInItsLastState) {
  ScriptedServer server;
  // Not what a conforming server sends; the store must still end right.
  server.enqueue(stream_step({test::watch_event_json("ADDED", pod("a", "1")), test::watch_event_json("ADDED", pod("b", "2")),
                              test::watch_event_json("ADDED", pod("a", "3")), test::watch_event_json("DELETED", pod("b", "4")),
                              test::watch_event_json("ADDED", pod("e", "5")), initial_events_end("6")},
                             true));
  kube::Client client(config_for(server));
  Informer<kube::Object> informer(client, {kube::core::pods(), "ns", "", ""});
  Recorder<kube::Object> rec;
  informer.add_handler(rec.handler());
  ASSERT_TRUE(run_until_seen(informer, rec, server, 5)) << ::testing::PrintToString(rec.snapshot());
  EXPECT_EQ(rec.snapshot(), (std::vector<std::string>{"add ns/a", "add ns/b", "update ns/a 1->3", "delete ns/b", "add ns/e"}));
  EXPECT_EQ(informer.store().size(), 2u);
  EXPECT_EQ(informer.store().get("ns/a")->resource_version, "3");
  EXPECT_EQ(informer.store().get("ns/b"), nullptr);
}

TEST(InformerFactory, SharesOneInformerPerKindAndSelector) {
  kube::RestConfig c;
  c.server = "http://127.0.0.1:1";
  kube::Client client(c);
  InformerFactory factory(client);
  auto a = factory.get<kube::Object>({kube::core::pods(), "", "", ""});
  auto b = factory.get<kube::Object>({kube::core::pods(), "", "", ""});
  auto projected = factory.get<kube::PodProjection>({kube::core::pods(), "", "", ""});
  InformerOptions labelled;
  labelled.selectors.label_selector = "app=x";
  auto selected = factory.get<kube::Object>({kube::core::pods(), "", "", ""}, labelled);
  InformerFilter<kube::PodProjection> some{"some", [](const kube::PodProjection&) { return true; }, {}};
  auto filtered = factory.get<kube::PodProjection>({kube::core::pods(), "", "", ""}, {}, some);
  EXPECT_EQ(filtered, factory.get<kube::PodProjection>({kube::core::pods(), "", "", ""}, {}, some));
  EXPECT_NE(filtered, projected) << "a filter is part of what an informer is";
  EXPECT_EQ(a, b);
  EXPECT_NE(static_cast<void*>(a.get()), static_cast<void*>(projected.get()));
  EXPECT_NE(a, selected);
}

}  // namespace
}  // namespace gpupool::runtime
