// The event recorder against a real kube-apiserver: events.k8s.io/v1 Events
// on the regarding object, repeats aggregated into one Event's series, and
// cluster-scoped objects' events in "default".
#include "gpupool/runtime/event_recorder.h"

#include <gtest/gtest.h>

#include <regex>

#include "gpupool/kube/client.h"
#include "support/cluster_fixture.h"
#include "support/kube_test_helpers.h"

namespace gpupool::runtime {
namespace {

using namespace std::chrono_literals;
using test::ClusterTest;

kube::ResourceRef events_in(const std::string& ns) { return {{"events.k8s.io", "v1", "events"}, ns, "", ""}; }

class EventRecorderTest : public ClusterTest {
 protected:
  kube::Client admin() { return kube::Client(test::rest_config(cluster(), cluster().admin_token())); }

  // Events in `ns` whose regarding names `name`, as the events.k8s.io/v1 API shows them.
  std::vector<rapidjson::Document> events_about(kube::Client& c, const std::string& ns, const std::string& name) {
    std::vector<rapidjson::Document> out;
    auto list = c.list(events_in(ns));
    for (auto& item : list["items"].GetArray()) {
      if (kube::string_at(item, {"regarding", "name"}) != name) continue;
      rapidjson::Document d;
      d.CopyFrom(item, d.GetAllocator());
      out.push_back(std::move(d));
    }
    return out;
  }

  ObjectReference configmap(kube::Client& c, const std::string& name) {
    auto cm = c.create({kube::core::configmaps(), ns(), "", ""},
                       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name + R"("}})");
    return reference_to(cm);
  }

  EventRecorderOptions options() {
    EventRecorderOptions o;
    o.reporting_controller = "gpupool.io/controller";
    o.reporting_instance = "gpupool-controller-test";
    return o;
  }
};

TEST_F(EventRecorderTest, RecordsAnEventOnTheRegardingObject) {
  kube::Client c = admin();
  ObjectReference cm = configmap(c, "cm");
  EXPECT_FALSE(cm.uid.empty());
  EXPECT_EQ(cm.api_version, "v1");
  EXPECT_EQ(cm.kind, "ConfigMap");
  EventRecorder recorder(c, options());
  recorder.record(cm, EventType::Normal, "Observed", "Reconcile", "config map cm looked at");
  ASSERT_TRUE(recorder.flush(30s));

  auto events = events_about(c, ns(), "cm");
  ASSERT_EQ(events.size(), 1u);
  const auto& e = events[0];
  EXPECT_EQ(kube::string_at(e, {"metadata", "namespace"}), ns());
  EXPECT_EQ(kube::string_at(e, {"regarding", "apiVersion"}), "v1");
  EXPECT_EQ(kube::string_at(e, {"regarding", "kind"}), "ConfigMap");
  EXPECT_EQ(kube::string_at(e, {"regarding", "namespace"}), ns());
  EXPECT_EQ(kube::string_at(e, {"regarding", "uid"}), cm.uid);
  EXPECT_EQ(kube::string_at(e, {"regarding", "resourceVersion"}), cm.resource_version);
  EXPECT_EQ(kube::string_at(e, {"type"}), "Normal");
  EXPECT_EQ(kube::string_at(e, {"reason"}), "Observed");
  EXPECT_EQ(kube::string_at(e, {"action"}), "Reconcile");
  EXPECT_EQ(kube::string_at(e, {"note"}), "config map cm looked at");
  EXPECT_EQ(kube::string_at(e, {"reportingController"}), "gpupool.io/controller");
  EXPECT_EQ(kube::string_at(e, {"reportingInstance"}), "gpupool-controller-test");
  EXPECT_TRUE(std::regex_match(kube::string_at(e, {"eventTime"}), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)")))
      << kube::string_at(e, {"eventTime"});
  EXPECT_FALSE(e.HasMember("series")) << "a first occurrence has no series";
  EXPECT_EQ(recorder.stats().created, 1u);

  // Also visible through the core/v1 API with the same content.
  auto core_events = c.list({kube::core::events(), ns(), "", ""});
  bool found = false;
  for (auto& item : core_events["items"].GetArray()) {
    if (kube::string_at(item, {"involvedObject", "name"}) == "cm") {
      found = true;
      EXPECT_EQ(kube::string_at(item, {"message"}), "config map cm looked at");
    }
  }
  EXPECT_TRUE(found);
}

TEST_F(EventRecorderTest, RepeatsBecomeOneEventWithASeries) {
  kube::Client c = admin();
  ObjectReference cm = configmap(c, "busy");
  EventRecorder recorder(c, options());
  for (int i = 0; i < 10; ++i) {
    recorder.record(cm, EventType::Warning, "SyncFailed", "Sync", "quota exceeded");
  }
  ASSERT_TRUE(recorder.flush(30s));
  auto events = events_about(c, ns(), "busy");
  ASSERT_EQ(events.size(), 1u) << "repeats must not make new Event objects";
  ASSERT_TRUE(events[0].HasMember("series"));
  EXPECT_EQ(events[0]["series"]["count"].GetInt(), 10);
  EXPECT_FALSE(kube::string_at(events[0], {"series", "lastObservedTime"}).empty());
  EXPECT_EQ(kube::string_at(events[0], {"type"}), "Warning");

  // Later repeats patch the same Event.
  for (int i = 0; i < 5; ++i) {
    recorder.record(cm, EventType::Warning, "SyncFailed", "Sync", "quota exceeded");
    ASSERT_TRUE(recorder.flush(30s));
  }
  events = events_about(c, ns(), "busy");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["series"]["count"].GetInt(), 15);
  EXPECT_EQ(recorder.stats().created, 1u);
  EXPECT_GE(recorder.stats().patched, 5u);

  // Another reason, or another note, is another Event.
  recorder.record(cm, EventType::Normal, "Synced", "Sync", "quota exceeded");
  recorder.record(cm, EventType::Warning, "SyncFailed", "Sync", "a different message");
  ASSERT_TRUE(recorder.flush(30s));
  events = events_about(c, ns(), "busy");
  EXPECT_EQ(events.size(), 3u);
  EXPECT_EQ(recorder.stats().failed, 0u);
  EXPECT_EQ(recorder.stats().dropped, 0u);
}

TEST_F(EventRecorderTest, ClusterScopedObjectsGetEventsInDefault) {
  kube::Client c = admin();
  const std::string node_name = ns() + "-node";  // unique per run
  auto node = c.create({kube::core::nodes(), "", "", ""},
                       R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + node_name + R"("}})");
  ObjectReference ref = reference_to(node);
  EXPECT_TRUE(ref.ns.empty());
  {
    EventRecorder recorder(c, options());
    recorder.record(ref, EventType::Warning, "GPUUnhealthy", "Check", "2 of 8 GPUs unhealthy");
    recorder.stop();  // stop() writes what is queued
    EXPECT_EQ(recorder.stats().created, 1u);
  }
  auto events = events_about(c, "default", node_name);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(kube::string_at(events[0], {"metadata", "namespace"}), "default");
  EXPECT_EQ(kube::string_at(events[0], {"regarding", "kind"}), "Node");
  EXPECT_FALSE(events[0]["regarding"].HasMember("namespace"));
  EXPECT_EQ(kube::string_at(events[0], {"type"}), "Warning");
  EXPECT_EQ(kube::string_at(events[0], {"note"}), "2 of 8 GPUs unhealthy");
  c.remove({{"events.k8s.io", "v1", "events"}, "default", kube::string_at(events[0], {"metadata", "name"}), ""});
  c.remove({kube::core::nodes(), "", node_name, ""});
}

TEST_F(EventRecorderTest, LimitsAreRespectedAndTheApiAcceptsTheEvent) {
  kube::Client c = admin();
  ObjectReference cm = configmap(c, "long");
  EventRecorder recorder(c, options());
  std::string note(3000, 'x');
  note += "\xc3\xa9";  // a multi-byte character past the limit
  recorder.record(cm, EventType::Normal, std::string(300, 'R'), "", note);
  ASSERT_TRUE(recorder.flush(30s));
  EXPECT_EQ(recorder.stats().failed, 0u);
  auto events = events_about(c, ns(), "long");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(kube::string_at(events[0], {"note"}).size(), 1024u);
  EXPECT_EQ(kube::string_at(events[0], {"reason"}).size(), 128u);
  EXPECT_EQ(kube::string_at(events[0], {"action"}), kube::string_at(events[0], {"reason"})) << "an empty action becomes the reason";
}

}  // namespace
}  // namespace gpupool::runtime
