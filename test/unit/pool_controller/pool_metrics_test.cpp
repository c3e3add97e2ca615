// The pool gauges: names, labels and values in the exposition from a pool's
// status; series that went (a resource, a whole pool) leave it; promtool
// accepts them, with gpupool_build_info.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "gpupool/metrics/build_info.h"
#include "gpupool/metrics/exposition.h"
#include "gpupool/pool_controller/pool_metrics.h"
#include "support/promtool.h"

namespace gpupool::pool_controller {
namespace {

api::QuantityValue quantity(const std::string& text) { return {*api::parse_quantity(text).value, false}; }

api::GPUPoolStatus training_status() {
  api::GPUPoolStatus s;
  s.nodes.total = 4;
  s.nodes.ready = 2;
  s.nodes.updating = 1;
  s.nodes.failed = 1;
  s.nodes.conflicted = 0;
  s.capacity = {{"nvidia.com/gpu", quantity("32")}, {"nvidia.com/mig-1g.10gb", quantity("14")}};
  s.granted = {{"nvidia.com/gpu", quantity("24")}, {"gpupool.io/gpu", quantity("2500m")}};
  api::RolloutStatus r;
  r.target_version = "550.54.15";
  r.updated = 2;
  r.pending = 1;
  r.failed = 1;
  r.paused = true;
  s.rollout = r;
  return s;
}

bool has(const std::string& text, const std::string& line) { return text.find(line) != std::string::npos; }

TEST(PoolMetrics, PublishesTheStatus) {
  metrics::Registry registry;
  PoolMetrics m(registry);
  m.set("training", training_status());
  const std::string text = metrics::render_text(registry);
  for (const char* line : {
           "# TYPE gpupool_pool_capacity gauge",
           R"(gpupool_pool_capacity{pool="training",resource="nvidia.com/gpu"} 32)",
           R"(gpupool_pool_capacity{pool="training",resource="nvidia.com/mig-1g.10gb"} 14)",
           R"(gpupool_pool_granted{pool="training",resource="nvidia.com/gpu"} 24)",
           R"(gpupool_pool_granted{pool="training",resource="gpupool.io/gpu"} 2.5)",
           R"(gpupool_pool_member_nodes{pool="training"} 4)",
           R"(gpupool_pool_nodes{pool="training",state="ready"} 2)",
           R"(gpupool_pool_nodes{pool="training",state="updating"} 1)",
           R"(gpupool_pool_nodes{pool="training",state="failed"} 1)",
           R"(gpupool_pool_nodes{pool="training",state="conflicted"} 0)",
           R"(gpupool_pool_rollout_nodes{pool="training",state="updated"} 2)",
           R"(gpupool_pool_rollout_nodes{pool="training",state="pending"} 1)",
           R"(gpupool_pool_rollout_nodes{pool="training",state="in_progress"} 1)",
           R"(gpupool_pool_rollout_nodes{pool="training",state="failed"} 1)",
           R"(gpupool_pool_rollout_paused{pool="training"} 1)",
       }) {
    EXPECT_TRUE(has(text, line)) << line << "\n" << text;
  }
}

TEST(PoolMetrics, UpdatesAndDropsWhatWent) {
  metrics::Registry registry;
  PoolMetrics m(registry);
  m.set("training", training_status());
  api::GPUPoolStatus inference;
  inference.nodes.total = 1;
  inference.capacity = {{"amd.com/gpu", quantity("8")}};
  m.set("inference", inference);

  // The rollout resumes, a node finishes, the MIG devices and the unit grant go.
  api::GPUPoolStatus s = training_status();
  s.rollout->paused = false;
  s.rollout->updated = 3;
  s.nodes.updating = 0;
  s.nodes.ready = 3;
  s.capacity.erase("nvidia.com/mig-1g.10gb");
  s.granted.erase("gpupool.io/gpu");
  m.set("training", s);
  std::string text = metrics::render_text(registry);
  EXPECT_TRUE(has(text, R"(gpupool_pool_rollout_paused{pool="training"} 0)")) << text;
  EXPECT_TRUE(has(text, R"(gpupool_pool_rollout_nodes{pool="training",state="updated"} 3)")) << text;
  EXPECT_TRUE(has(text, R"(gpupool_pool_rollout_nodes{pool="training",state="in_progress"} 0)")) << text;
  EXPECT_TRUE(has(text, R"(gpupool_pool_nodes{pool="training",state="ready"} 3)")) << text;
  EXPECT_FALSE(has(text, "nvidia.com/mig-1g.10gb")) << text;
  EXPECT_FALSE(has(text, "gpupool.io/gpu")) << text;
  EXPECT_TRUE(has(text, R"(gpupool_pool_capacity{pool="training",resource="nvidia.com/gpu"} 32)")) << text;
  // No rollout in the status: no rollout series for that pool.
  EXPECT_TRUE(has(text, R"(gpupool_pool_capacity{pool="inference",resource="amd.com/gpu"} 8)")) << text;
  EXPECT_FALSE(has(text, R"(gpupool_pool_rollout_paused{pool="inference"})")) << text;

  m.remove("training");
  text = metrics::render_text(registry);
  EXPECT_FALSE(has(text, R"(pool="training")")) << text;
  EXPECT_TRUE(has(text, R"(gpupool_pool_member_nodes{pool="inference"} 1)")) << text;
  m.remove("inference");
  m.remove("never-seen");
  text = metrics::render_text(registry);
  EXPECT_FALSE(has(text, "gpupool_pool_")) << text;

  // A pool created again under the same name comes back.
  m.set("training", training_status());
  EXPECT_TRUE(has(metrics::render_text(registry), R"(gpupool_pool_rollout_paused{pool="training"} 1)"));
}

TEST(PoolMetrics, TwoInstancesOnOneRegistryShareTheFamilies) {
  metrics::Registry registry;
  PoolMetrics a(registry);
  PoolMetrics b(registry);
  a.set("training", training_status());
  EXPECT_TRUE(has(metrics::render_text(registry), R"(gpupool_pool_member_nodes{pool="training"} 4)"));
}

TEST(BuildInfo, OneSeriesWithVersionAndRevision) {
  metrics::Registry registry;
  metrics::register_build_info(registry);
  metrics::register_build_info(registry);
  std::stringstream cmake;
  cmake << std::ifstream(std::string(GPUPOOL_SOURCE_DIR) + "/CMakeLists.txt").rdbuf();
  std::smatch project;
  const std::string cmake_text = cmake.str();
  ASSERT_TRUE(std::regex_search(cmake_text, project, std::regex(R"(project\([^)]*VERSION ([0-9.]+))")));
  const std::string version = project[1];
  EXPECT_EQ(metrics::build_version(), version);
  const std::string revision(metrics::build_revision());
  EXPECT_FALSE(revision.empty());
  EXPECT_TRUE(revision == "unknown" || revision.find_first_not_of("0123456789abcdef") == std::string::npos) << revision;
  const std::string text = metrics::render_text(registry);
  EXPECT_TRUE(has(text, "# TYPE gpupool_build_info gauge")) << text;
  EXPECT_TRUE(has(text, R"(gpupool_build_info{version=")" + version + R"(",revision=")" + revision + R"("} 1)")) << text;
}

TEST(PoolMetrics, PromtoolCheckMetricsIsClean) {
  const auto promtool = test::find_promtool();
  if (!promtool) GTEST_SKIP() << "promtool not found on PATH: install the Debian package `prometheus` (tools/dev/setup.sh does)";
  metrics::Registry registry;
  metrics::register_build_info(registry);
  PoolMetrics m(registry);
  m.set("training", training_status());
  api::GPUPoolStatus other;
  other.capacity = {{"nvidia.com/gpu", quantity("8")}};
  other.rollout = api::RolloutStatus{};
  m.set("inference", other);
  const std::string text = metrics::render_text(registry);
  const auto check = test::promtool_check_metrics(*promtool, text);
  EXPECT_EQ(check.exit_code, 0) << "promtool says:\n" << check.output << "\non:\n" << text;
  EXPECT_EQ(check.output, "") << text;
}

}  // namespace
}  // namespace gpupool::pool_controller

namespace gpupool::pool_controller {
namespace {

// The maintenance window gauge follows what the reconciler passes.
TEST(PoolMetrics, TheRolloutWindowGauge) {
  metrics::Registry registry;
  PoolMetrics m(registry);
  m.set("training", api::GPUPoolStatus{}, false);
  EXPECT_NE(metrics::render_text(registry).find(R"(gpupool_pool_rollout_window_open{pool="training"} 0)"), std::string::npos);
  m.set("training", api::GPUPoolStatus{});
  EXPECT_NE(metrics::render_text(registry).find(R"(gpupool_pool_rollout_window_open{pool="training"} 1)"), std::string::npos);
}

// Heartbeats come from the Lease store as it is at the scrape: members only,
// 0 for a member whose agent has no Lease.
TEST(PoolMetrics, HeartbeatsOfEveryMemberFromTheirLeases) {
  runtime::Store<kube::Object> gpunodes, leases;
  auto put = [](runtime::Store<kube::Object>& store, const std::string& key, const std::string& json) {
    store.upsert(key, std::make_shared<const kube::Object>(kube::decode_object(json)));
  };
  put(gpunodes, "n1", R"({"metadata":{"name":"n1"},"spec":{"nodeName":"n1","pool":"training"}})");
  put(gpunodes, "n2", R"({"metadata":{"name":"n2"},"spec":{"nodeName":"n2","pool":"training"}})");
  put(gpunodes, "n3", R"({"metadata":{"name":"n3"},"spec":{"nodeName":"n3"}})");
  put(leases, "gpupool-system/gpupool-agent-n1",
      R"({"metadata":{"name":"gpupool-agent-n1","namespace":"gpupool-system"},)"
      R"("spec":{"holderIdentity":"n1","leaseDurationSeconds":40,"renewTime":"2026-11-26T03:00:00.000000Z"}})");
  const auto fs = heartbeat_families(gpunodes, leases, "gpupool-system");
  const std::string text = metrics::render_text(fs);
  EXPECT_NE(text.find(R"(gpupool_node_heartbeat_timestamp_seconds{pool="training",node="n1"} 1795662000)"), std::string::npos)
      << text;
  EXPECT_NE(text.find(R"(gpupool_node_heartbeat_timestamp_seconds{pool="training",node="n2"} 0)"), std::string::npos) << text;
  EXPECT_EQ(text.find(R"(node="n3")"), std::string::npos) << "not in a pool";
}

}  // namespace
}  // namespace gpupool::pool_controller
