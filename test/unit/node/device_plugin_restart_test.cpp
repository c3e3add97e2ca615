// Which device plugin pods the agent restarts, and when: a table.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpupool/kube/client.h"
#include "gpupool/node/device_plugin_restart.h"

namespace gpupool::node {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::system_clock;

const std::vector<std::string> kSelectors{"app.kubernetes.io/name=nvidia-device-plugin",
                                          "app=nvidia-device-plugin-daemonset,tier=gpu"};

TEST(DevicePluginPods, MatchesAnySelectorWithEveryPairAndSkipsFinishedPods) {
  const auto doc = kube::parse_json(R"([
    {"metadata":{"namespace":"nvidia","name":"helm-chart","uid":"u1","labels":{"app.kubernetes.io/name":"nvidia-device-plugin"},
                 "creationTimestamp":"2026-11-25T10:00:00Z"},
     "status":{"phase":"Running","startTime":"2026-11-25T10:00:05Z"}},
    {"metadata":{"namespace":"gpu-operator","name":"operator-both","uid":"u2",
                 "labels":{"app":"nvidia-device-plugin-daemonset","tier":"gpu"},"deletionTimestamp":"2026-11-25T10:01:00Z"},
     "status":{"phase":"Running"}},
    {"metadata":{"namespace":"gpu-operator","name":"operator-half","uid":"u3","labels":{"app":"nvidia-device-plugin-daemonset"}},
     "status":{"phase":"Running"}},
    {"metadata":{"namespace":"nvidia","name":"finished","uid":"u4","labels":{"app.kubernetes.io/name":"nvidia-device-plugin"}},
     "status":{"phase":"Failed"}},
    {"metadata":{"namespace":"team-a","name":"no-labels","uid":"u5"},"status":{"phase":"Running"}},
    {"metadata":{"namespace":"nvidia","name":"pending","uid":"u6","labels":{"app.kubernetes.io/name":"nvidia-device-plugin"},
                 "creationTimestamp":"2026-11-25T10:00:00Z"},"status":{"phase":"Pending"}}
  ])");
  std::vector<const rapidjson::Value*> pods;
  for (const auto& p : doc.GetArray()) pods.push_back(&p);
  const auto found = device_plugin_pods(pods, kSelectors);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].name, "helm-chart");
  EXPECT_EQ(found[0].uid, "u1");
  ASSERT_TRUE(found[0].started.has_value());
  EXPECT_EQ(found[0].started->time_since_epoch() % 60s, 5s);  // startTime wins over creationTimestamp
  EXPECT_FALSE(found[0].deleting);
  EXPECT_EQ(found[1].name, "operator-both");
  EXPECT_TRUE(found[1].deleting);
  EXPECT_FALSE(found[1].started.has_value());
  EXPECT_EQ(found[2].name, "pending");
  ASSERT_TRUE(found[2].started.has_value());  // creationTimestamp when not started
  EXPECT_TRUE(device_plugin_pods(pods, {}).empty());
  EXPECT_TRUE(device_plugin_pods(pods, {"app.kubernetes.io/name"}).empty());  // not k=v
}

struct Case {
  std::string name;
  std::vector<DevicePluginPod> pods;
  std::chrono::seconds stale_for;  // how long the capacity has been stale
  std::vector<std::string> restarted;
  std::string waiting_contains;
};

DevicePluginPod pod(const std::string& name, std::optional<std::chrono::seconds> age, bool deleting = false) {
  DevicePluginPod p;
  p.ns = "nvidia";
  p.name = name;
  p.uid = "uid-" + name;
  if (age) p.started = Clock::time_point(1000000s) - *age;
  p.deleting = deleting;
  return p;
}

TEST(DevicePluginRestart, Table) {
  const std::vector<Case> cases = {
      {"no plugin pod: nothing to restart, said so", {}, 600s, {}, "no device plugin pod on this node"},
      {"stale for less than restart-after", {pod("dp", 3600s)}, 59s, {}, "waiting up to 60s"},
      {"stale long enough, old pod: restarted", {pod("dp", 3600s)}, 60s, {"dp"}, ""},
      {"pod restarted recently: given its time", {pod("dp", 30s)}, 600s, {}, "started less than 60s ago"},
      {"pod without a start time is treated as new", {pod("dp", std::nullopt)}, 600s, {}, "started less than 60s ago"},
      {"a pod being deleted: wait for its successor", {pod("old", 3600s, true), pod("dp", 3600s)}, 600s, {}, "is restarting"},
      {"two old pods (plugin and a second daemonset): both", {pod("a", 3600s), pod("b", 7200s)}, 120s, {"a", "b"}, ""},
  };
  const auto now = Clock::time_point(1000000s);
  for (const auto& c : cases) {
    const auto d = decide_device_plugin_restart(c.pods, now - c.stale_for, now, 60s, kSelectors);
    std::vector<std::string> names;
    for (const auto& p : d.restart) names.push_back(p.name);
    EXPECT_EQ(names, c.restarted) << c.name;
    if (c.restarted.empty()) {
      EXPECT_NE(d.waiting.find(c.waiting_contains), std::string::npos) << c.name << ": " << d.waiting;
    } else {
      EXPECT_TRUE(d.waiting.empty()) << c.name;
    }
  }
}

}  // namespace
}  // namespace gpupool::node
