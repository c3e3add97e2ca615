// The event recorder against the scripted server: what goes on the wire, and
// the faults (a hanging server, 5xx, an Event gone before its series update).
#include "gpupool/runtime/event_recorder.h"

#include <gtest/gtest.h>

#include <set>

#include "gpupool/testenv/wait.h"
#include "support/scripted_client.h"
#include "support/scripted_server.h"

namespace gpupool::runtime {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using test::ScriptedServer;
using test::Step;

EventRecorderOptions options() {
  EventRecorderOptions o;
  o.reporting_controller = "gpupool.io/controller";
  o.retry_backoff = 10ms;
  return o;
}

ObjectReference node() { return {"v1", "Node", "", "gpu-node-1", "uid-1", "42"}; }
ObjectReference node_named(const std::string& name) { return {"v1", "Node", "", name, "u", "1"}; }

// Every request read, no answer until server.release() or stop().
void hang_every_answer(ScriptedServer& server) {
  Step hang;
  hang.hang = true;
  server.set_default(hang);
}

std::string event_answer(const std::string& ns) {
  return R"({"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"x","namespace":")" + ns + R"("}})";
}

TEST(EventRecorderWire, CreatesInDefaultForClusterScopedObjectsThenPatchesTheSeries) {
  ScriptedServer server;
  server.set_default(test::json_step(201, event_answer("default")));
  kube::Client client(test::scripted_config(server, 1s));
  EventRecorder recorder(client, options());
  recorder.record(node(), EventType::Warning, "GPUUnhealthy", "Check", "gpu 3 \"fell off the bus\"");
  ASSERT_TRUE(recorder.flush(5s));
  recorder.record(node(), EventType::Warning, "GPUUnhealthy", "Check", "gpu 3 \"fell off the bus\"");
  ASSERT_TRUE(recorder.flush(5s));

  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[0].path, "/apis/events.k8s.io/v1/namespaces/default/events");
  auto ev = kube::parse_json(reqs[0].body);
  EXPECT_EQ(kube::string_at(ev, {"metadata", "namespace"}), "default");
  const std::string name = kube::string_at(ev, {"metadata", "name"});
  EXPECT_EQ(name.rfind("gpu-node-1.", 0), 0u) << name;
  EXPECT_EQ(kube::string_at(ev, {"regarding", "kind"}), "Node");
  EXPECT_EQ(kube::string_at(ev, {"regarding", "uid"}), "uid-1");
  EXPECT_EQ(kube::string_at(ev, {"regarding", "resourceVersion"}), "42");
  EXPECT_FALSE(ev["regarding"].HasMember("namespace"));
  EXPECT_EQ(kube::string_at(ev, {"note"}), "gpu 3 \"fell off the bus\"");
  EXPECT_EQ(kube::string_at(ev, {"type"}), "Warning");
  EXPECT_EQ(kube::string_at(ev, {"reportingController"}), "gpupool.io/controller");
  EXPECT_EQ(kube::string_at(ev, {"reportingInstance"}).rfind("gpupool.io/controller-", 0), 0u);
  EXPECT_FALSE(ev.HasMember("series"));

  EXPECT_EQ(reqs[1].method, "PATCH");
  EXPECT_EQ(reqs[1].path, "/apis/events.k8s.io/v1/namespaces/default/events/" + name);
  EXPECT_EQ(reqs[1].headers["content-type"], "application/merge-patch+json");
  auto patch = kube::parse_json(reqs[1].body);
  EXPECT_EQ(patch["series"]["count"].GetInt(), 2);
  EXPECT_FALSE(kube::string_at(patch, {"series", "lastObservedTime"}).empty());
}

TEST(EventRecorderWire, AnEventGoneBeforeItsSeriesUpdateIsCreatedAgainWithTheSeries) {
  ScriptedServer server;
  server.enqueue(test::json_step(201, event_answer("default")));
  server.enqueue(test::status_step(404, "NotFound", "events \"x\" not found"));
  server.set_default(test::json_step(201, event_answer("default")));
  kube::Client client(test::scripted_config(server, 1s));
  EventRecorder recorder(client, options());
  recorder.record(node(), EventType::Normal, "Seen", "Observe", "n");
  ASSERT_TRUE(recorder.flush(5s));
  recorder.record(node(), EventType::Normal, "Seen", "Observe", "n");
  ASSERT_TRUE(recorder.flush(5s));
  auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[1].method, "PATCH");
  EXPECT_EQ(reqs[2].method, "POST");
  auto ev = kube::parse_json(reqs[2].body);
  EXPECT_EQ(ev["series"]["count"].GetInt(), 2);
  EXPECT_EQ(recorder.stats().created, 2u);
}

TEST(EventRecorderFaults, ServerErrorsAreRetriedAndRejectionsDropped) {
  ScriptedServer server;
  server.enqueue(test::status_step(503, "ServiceUnavailable", "busy"));
  server.enqueue(test::json_step(201, event_answer("ns")));
  server.enqueue(test::status_step(422, "Invalid", "Event.events.k8s.io is invalid"));
  kube::Client client(test::scripted_config(server, 1s));
  EventRecorder recorder(client, options());
  ObjectReference cm{"v1", "ConfigMap", "ns", "cm", "u", "1"};
  recorder.record(cm, EventType::Normal, "A", "Act", "first");
  ASSERT_TRUE(recorder.flush(5s));
  EXPECT_EQ(recorder.stats().created, 1u);
  EXPECT_EQ(server.requests().size(), 2u);
  recorder.record(cm, EventType::Normal, "B", "Act", "rejected");
  ASSERT_TRUE(recorder.flush(5s));
  EXPECT_EQ(server.requests().size(), 3u) << "a 4xx is not retried";
  EXPECT_EQ(recorder.stats().failed, 1u);
}

TEST(EventRecorderFaults, RecordNeverBlocksOnAHangingServerAndDropsWhenFull) {
  ScriptedServer server;
  hang_every_answer(server);
  kube::Client client(test::scripted_config(server, 1s));
  auto o = options();
  o.queue_capacity = 10;
  o.max_attempts = 1;
  EventRecorder recorder(client, o);
  ObjectReference cm{"v1", "ConfigMap", "ns", "cm", "u", "1"};
  const auto start = Clock::now();
  // Different notes: different Events (repeats of one would be counted on it).
  for (int i = 0; i < 1000; ++i) {
    recorder.record(cm, EventType::Warning, "Stuck", "Act", "the server hangs " + std::to_string(i));
  }
  EXPECT_LT(Clock::now() - start, 500ms) << "record() blocked";
  auto s = recorder.stats();
  EXPECT_GE(s.dropped, 900u);
  EXPECT_LE(s.recorded, 100u);
  EXPECT_EQ(s.recorded + s.dropped, 1000u);
  EXPECT_FALSE(recorder.flush(100ms)) << "nothing can be written while the server hangs";

  const auto stopping = Clock::now();
  recorder.stop(100ms);
  // The requests in flight (one per writer, at once) and nothing after them.
  EXPECT_LT(Clock::now() - stopping, 3s);
  recorder.record(cm, EventType::Warning, "Stuck", "Act", "after stop");
  EXPECT_EQ(recorder.stats().dropped, s.dropped + 1);
  server.stop();
}

// A rollout records Events about many objects at once: they are written
// several at a time, not each after the one before's round trip.
TEST(EventRecorderWire, EventsAboutDifferentObjectsAreWrittenSeveralAtOnce) {
  ScriptedServer server;
  hang_every_answer(server);
  kube::Client client(test::scripted_config(server, 30s));
  auto o = options();
  o.writes_in_flight = 4;
  EventRecorder recorder(client, o);
  for (int i = 0; i < 6; ++i) {
    recorder.record(node_named("gpu-node-" + std::to_string(i)), EventType::Normal, "DriverUpgrade", "Upgrade",
                    "cordoned for the driver upgrade");
  }
  // Every answer hangs: only writes in flight together can reach the server.
  ASSERT_TRUE(testenv::wait_until([&] { return server.requests().size() >= 4; }, 10s)) << server.requests().size();
  EXPECT_EQ(server.requests().size(), 4u) << "writes_in_flight Events at once, no more";
  server.set_default(test::json_step(201, event_answer("default")));
  server.release();
  ASSERT_TRUE(recorder.flush(20s));
  EXPECT_EQ(recorder.stats().created, 6u);
  EXPECT_EQ(recorder.stats().failed, 0u);
}

// With the queue full, a Warning takes the place of the oldest Normal event:
// a busy API server loses progress notes before it loses what went wrong.
TEST(EventRecorderFaults, AWarningTakesTheOldestNormalsPlaceInAFullQueue) {
  ScriptedServer server;
  hang_every_answer(server);
  kube::Client client(test::scripted_config(server, 30s));
  auto o = options();
  o.queue_capacity = 3;
  o.writes_in_flight = 1;
  EventRecorder recorder(client, o);
  recorder.record(node_named("in-flight"), EventType::Normal, "Updated", "Update", "taken by the writer");
  ASSERT_TRUE(testenv::wait_until([&] { return server.requests().size() == 1; }, 10s));
  for (const char* name : {"n-0", "n-1", "n-2"}) recorder.record(node_named(name), EventType::Normal, "Updated", "Update", "queued");
  recorder.record(node_named("n-3"), EventType::Normal, "Updated", "Update", "no room");
  recorder.record(node_named("w-0"), EventType::Warning, "UpdateFailed", "Update", "the install failed");
  EXPECT_EQ(recorder.stats().dropped, 2u) << "n-3, then n-0 for w-0";

  server.set_default(test::json_step(201, event_answer("default")));
  server.release();
  ASSERT_TRUE(recorder.flush(20s));
  std::set<std::string> written;
  for (const auto& r : server.requests()) {
    if (r.method == "POST") written.insert(kube::string_at(kube::parse_json(r.body), {"regarding", "name"}));
  }
  EXPECT_EQ(written, (std::set<std::string>{"in-flight", "n-1", "n-2", "w-0"}));
}

TEST(EventRecorderOptionsTest, RequiresAReportingController) {
  ScriptedServer server;
  kube::Client client(test::scripted_config(server, 1s));
  EXPECT_THROW(EventRecorder(client, EventRecorderOptions{}), std::invalid_argument);
}

}  // namespace
}  // namespace gpupool::runtime
