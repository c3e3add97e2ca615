#include "gpupool/node/node_patches.h"

#include <gtest/gtest.h>

#include "gpupool/node/device_plugin_config.h"

namespace gpupool::node {
namespace {

rapidjson::Document parse(const std::string& s) {
  rapidjson::Document d;
  d.Parse(s.c_str());
  return d;
}

bool owned(std::string_view k) { return k.rfind("nvidia.com/gpu", 0) == 0; }

TEST(NodePatches, LabelsOnlyWhatDiffersAndRemovesOnlyOwned) {
  auto node = parse(R"({"metadata":{"labels":{"nvidia.com/gpu.count":"2","nvidia.com/gpu.product":"X","team":"a"}}})");
  EXPECT_FALSE(label_patch(node, {{"nvidia.com/gpu.count", "2"}, {"nvidia.com/gpu.product", "X"}}, owned));
  EXPECT_EQ(label_patch(node, {{"nvidia.com/gpu.count", "1"}}, owned).value(),
            R"({"metadata":{"labels":{"nvidia.com/gpu.count":"1","nvidia.com/gpu.product":null}}})");
  // A node with no labels at all, a malformed labels field: no crash.
  EXPECT_EQ(label_patch(parse(R"({"metadata":{"labels":7}})"), {{"a", "b"}}, owned).value(),
            R"({"metadata":{"labels":{"a":"b"}}})");
}

TEST(NodePatches, CapacityAndAllocatable) {
  auto node = parse(R"({"status":{"capacity":{"cpu":"8","nvidia.com/gpu":"2"},"allocatable":{"cpu":"8","nvidia.com/gpu":"2"}}})");
  EXPECT_FALSE(capacity_patch(node, {{"nvidia.com/gpu", 2}}, owned));
  EXPECT_EQ(capacity_patch(node, {{"nvidia.com/mig-1g.10gb", 7}}, [](std::string_view k) {
              return k.rfind("nvidia.com/", 0) == 0;
            }).value(),
            R"({"status":{"capacity":{"nvidia.com/mig-1g.10gb":"7","nvidia.com/gpu":null},)"
            R"("allocatable":{"nvidia.com/mig-1g.10gb":"7","nvidia.com/gpu":null}}})");
}

TEST(NodePatches, CordonRecordsWhetherTheNodeWasCordonedBefore) {
  auto schedulable = parse(R"({"metadata":{"resourceVersion":"5"},"spec":{}})");
  EXPECT_EQ(cordon_patch(schedulable).value(),
            R"({"metadata":{"resourceVersion":"5","annotations":{"gpupool.io/pre-drain-unschedulable":"false"}},)"
            R"("spec":{"unschedulable":true}})");
  auto admin_cordoned = parse(R"({"metadata":{"resourceVersion":"6"},"spec":{"unschedulable":true}})");
  EXPECT_NE(cordon_patch(admin_cordoned).value().find(R"("gpupool.io/pre-drain-unschedulable":"true")"), std::string::npos);
  // Restarted half-way: the record is kept, only the cordon is redone.
  auto recorded = parse(R"({"metadata":{"resourceVersion":"7","annotations":{"gpupool.io/pre-drain-unschedulable":"false"}},"spec":{}})");
  EXPECT_EQ(cordon_patch(recorded).value(), R"({"metadata":{"resourceVersion":"7"},"spec":{"unschedulable":true}})");
  auto done = parse(R"({"metadata":{"annotations":{"gpupool.io/pre-drain-unschedulable":"false"}},"spec":{"unschedulable":true}})");
  EXPECT_FALSE(cordon_patch(done));
  EXPECT_TRUE(drain_started(done));
}

TEST(NodePatches, UncordonOnlyWhatTheAgentCordoned) {
  auto ours = parse(R"({"metadata":{"resourceVersion":"8","annotations":{"gpupool.io/pre-drain-unschedulable":"false"}},"spec":{"unschedulable":true}})");
  EXPECT_EQ(uncordon_patch(ours).value(),
            R"({"metadata":{"resourceVersion":"8","annotations":{"gpupool.io/pre-drain-unschedulable":null}},)"
            R"("spec":{"unschedulable":false}})");
  auto admins = parse(R"({"metadata":{"resourceVersion":"9","annotations":{"gpupool.io/pre-drain-unschedulable":"true"}},"spec":{"unschedulable":true}})");
  EXPECT_EQ(uncordon_patch(admins).value(),
            R"({"metadata":{"resourceVersion":"9","annotations":{"gpupool.io/pre-drain-unschedulable":null}}})");
  EXPECT_FALSE(uncordon_patch(parse(R"({"metadata":{},"spec":{"unschedulable":true}})")));
}

TEST(DevicePluginConfig, NamesPerStrategyAndSharing) {
  api::Sharing exclusive;
  EXPECT_EQ(device_plugin_config_name(api::MIGStrategy::mixed, exclusive), "gpupool-mixed-exclusive");
  api::Sharing ts;
  ts.mode = api::SharingMode::time_slicing;
  ts.time_slicing = api::TimeSlicing{4, true};
  EXPECT_EQ(device_plugin_config_name(api::MIGStrategy::single, ts), "gpupool-single-ts4-renamed");
  api::Sharing mps;
  mps.mode = api::SharingMode::mps;
  mps.mps = api::MPS{8, 50};
  EXPECT_EQ(device_plugin_config_name(api::MIGStrategy::mixed, mps), "gpupool-mixed-mps8-t50");
}

TEST(PatchMemory, SendsNothingTwiceWhileTheStoreShowsTheSameVersion) {
  using Kind = PatchMemory::Kind;
  struct Step {
    const char* what;
    Kind kind;
    std::string body, store_version;
    bool already_sent;
    bool then_send;
  };
  const Step steps[] = {
      {"first time", Kind::labels, R"({"a":"1"})", "10", false, true},
      {"the store lags the write: same patch, same version", Kind::labels, R"({"a":"1"})", "10", true, false},
      {"the other kind is remembered apart", Kind::capacity, R"({"a":"1"})", "10", false, true},
      {"another patch at the same version", Kind::labels, R"({"a":"2"})", "10", false, false},
      {"not sent: the first is still remembered", Kind::labels, R"({"a":"1"})", "10", true, false},
      {"the store moved on (someone reverted it?): send again", Kind::labels, R"({"a":"1"})", "11", false, true},
      {"only the last patch is remembered", Kind::labels, R"({"a":"2"})", "11", false, true},
      {"...not the one before", Kind::labels, R"({"a":"1"})", "11", false, false},
      {"an empty body is never remembered as sent", Kind::labels, "", "", false, false},
  };
  PatchMemory m;
  for (const auto& s : steps) {
    EXPECT_EQ(m.already_sent(s.kind, s.body, s.store_version), s.already_sent) << s.what;
    if (s.then_send) m.sent(s.kind, s.body, s.store_version);
  }
}

}  // namespace
}  // namespace gpupool::node
