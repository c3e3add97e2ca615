// The quota gauges: names, labels and values in the exposition; series of
// quotas, pools or resources that went leave it; clean for promtool.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "gpupool/metrics/exposition.h"
#include "gpupool/quota_controller/quota_metrics.h"
#include "support/promtool.h"

namespace gpupool::quota_controller {
namespace {

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

TEST(QuotaMetrics, PublishesEachFigureAndDropsWhatWent) {
  metrics::Registry registry;
  QuotaMetrics m(registry);
  QuotaFigures train;
  train.granted = {{"nvidia.com/gpu", 6 * quota::kMicro}};
  train.used = {{"nvidia.com/gpu", 8 * quota::kMicro}};
  train.waiting = {{"nvidia.com/gpu", 194 * quota::kMicro}};
  train.borrowed = {{"nvidia.com/gpu", 2 * quota::kMicro}};
  train.pool = "a100";
  train.tenant = "research";
  train.pods_waiting = 194;
  QuotaFigures units;
  units.pool = "h100";
  units.tenant = "ml";
  units.used = {{"gpupool.io/gpu", 428571}};
  m.publish({{"ml/train", train}, {"ml/units", units}});
  std::string text = metrics::render_text(registry);
  for (const char* line : {R"(gpupool_tenantquota_granted{namespace="ml",name="train",resource="nvidia.com/gpu"} 6)",
                           R"(gpupool_tenantquota_used{namespace="ml",name="train",resource="nvidia.com/gpu"} 8)",
                           R"(gpupool_tenantquota_waiting{namespace="ml",name="train",resource="nvidia.com/gpu"} 194)",
                           R"(gpupool_tenantquota_borrowed{namespace="ml",name="train",resource="nvidia.com/gpu"} 2)",
                           R"(gpupool_tenantquota_used{namespace="ml",name="units",resource="gpupool.io/gpu"} 0.428571)",
                           R"(gpupool_tenantquota_pods_waiting{namespace="ml",name="train"} 194)",
                           R"(gpupool_tenantquota_pods_waiting{namespace="ml",name="units"} 0)",
                           R"(gpupool_tenantquota_info{namespace="ml",name="train",pool="a100",tenant="research"} 1)",
                           R"(gpupool_tenantquota_info{namespace="ml",name="units",pool="h100",tenant="ml"} 1)"}) {
    EXPECT_TRUE(has(text, line)) << line << "\n" << text;
  }

  train.borrowed.clear();
  train.pods_waiting = 0;
  m.publish({{"ml/train", train}});  // ml/units deleted, nothing borrowed any more, none waiting
  text = metrics::render_text(registry);
  EXPECT_FALSE(has(text, R"(name="units")")) << text;
  EXPECT_FALSE(has(text, R"(gpupool_tenantquota_borrowed{)")) << text;
  EXPECT_TRUE(has(text, R"(gpupool_tenantquota_used{namespace="ml",name="train",resource="nvidia.com/gpu"} 8)")) << text;
  EXPECT_TRUE(has(text, R"(gpupool_tenantquota_pods_waiting{namespace="ml",name="train"} 0)")) << text;

  // The namespace's tenant label changed: the info series moves, no stale one stays.
  train.tenant = "platform";
  m.publish({{"ml/train", train}});
  text = metrics::render_text(registry);
  EXPECT_TRUE(has(text, R"(gpupool_tenantquota_info{namespace="ml",name="train",pool="a100",tenant="platform"} 1)")) << text;
  EXPECT_FALSE(has(text, R"(tenant="research")")) << text;

  m.publish({});
  text = metrics::render_text(registry);
  EXPECT_FALSE(has(text, "gpupool_tenantquota_info{")) << text;
  EXPECT_FALSE(has(text, "gpupool_tenantquota_pods_waiting{")) << text;
}

// gpupool_pool_allocated, pass after pass: each pass publishes what the pools
// hold then, and the series that pass has (every other one of the family is gone).
TEST(QuotaMetrics, PoolAllocationFollowsEachPass) {
  struct Pass {
    const char* what;
    std::map<std::string, quota::Amounts> allocated;
    std::vector<std::string> series;  // every gpupool_pool_allocated line expected, in exposition order
  };
  const std::vector<Pass> passes = {
      {"nothing admitted yet", {}, {}},
      {"two pools: whole GPUs and MIG instances",
       {{"a100", {{"nvidia.com/gpu", 3 * quota::kMicro}, {"nvidia.com/mig-1g.10gb", 2 * quota::kMicro}}},
        {"h100", {{"nvidia.com/gpu", 8 * quota::kMicro}}}},
       {R"(gpupool_pool_allocated{pool="a100",resource="nvidia.com/gpu"} 3)",
        R"(gpupool_pool_allocated{pool="a100",resource="nvidia.com/mig-1g.10gb"} 2)",
        R"(gpupool_pool_allocated{pool="h100",resource="nvidia.com/gpu"} 8)"}},
      {"fractions in gpupool.io/gpu; the MIG pods finished (0 held: no series)",
       {{"a100", {{"nvidia.com/gpu", 3 * quota::kMicro}, {"nvidia.com/mig-1g.10gb", 0}, {"gpupool.io/gpu", 2500000}}},
        {"h100", {{"nvidia.com/gpu", 8 * quota::kMicro}}}},
       {R"(gpupool_pool_allocated{pool="a100",resource="gpupool.io/gpu"} 2.5)",
        R"(gpupool_pool_allocated{pool="a100",resource="nvidia.com/gpu"} 3)",
        R"(gpupool_pool_allocated{pool="h100",resource="nvidia.com/gpu"} 8)"}},
      {"h100 holds none now, a100 deleted (left out)", {{"h100", {}}}, {}},
      {"h100 again", {{"h100", {{"nvidia.com/gpu", 1 * quota::kMicro}}}},
       {R"(gpupool_pool_allocated{pool="h100",resource="nvidia.com/gpu"} 1)"}},
  };
  metrics::Registry registry;
  QuotaMetrics m(registry);
  for (const auto& pass : passes) {
    m.publish_pools(pass.allocated);
    const std::string text = metrics::render_text(registry);
    std::vector<std::string> got;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with("gpupool_pool_allocated{")) got.push_back(line);
    }
    EXPECT_EQ(got, pass.series) << pass.what << "\n" << text;
  }
}

TEST(QuotaMetrics, TheQuotaAndPoolFamiliesAreApart) {
  metrics::Registry registry;
  QuotaMetrics m(registry);
  QuotaFigures f;
  f.pool = "a100";
  f.tenant = "ml";
  m.publish({{"ml/train", f}});
  m.publish_pools({{"a100", {{"nvidia.com/gpu", quota::kMicro}}}});
  m.publish({});  // the quotas' pass leaves the pools' series alone, and the other way round
  std::string text = metrics::render_text(registry);
  EXPECT_TRUE(has(text, R"(gpupool_pool_allocated{pool="a100",resource="nvidia.com/gpu"} 1)")) << text;
  m.publish({{"ml/train", f}});
  m.publish_pools({});
  text = metrics::render_text(registry);
  EXPECT_TRUE(has(text, R"(gpupool_tenantquota_info{namespace="ml",name="train",pool="a100",tenant="ml"} 1)")) << text;
  EXPECT_FALSE(has(text, "gpupool_pool_allocated{")) << text;
}

TEST(QuotaMetrics, PromtoolCheckMetricsIsClean) {
  const auto promtool = test::find_promtool();
  if (!promtool) GTEST_SKIP() << "promtool not found on PATH: install the Debian package `prometheus` (tools/dev/setup.sh does)";
  metrics::Registry registry;
  QuotaMetrics m(registry);
  QuotaFigures f;
  f.granted = {{"nvidia.com/gpu", 2 * quota::kMicro}};
  f.used = {{"nvidia.com/gpu", 3 * quota::kMicro}};
  f.waiting = {{"gpupool.io/gpu", 500000}};
  f.borrowed = {{"nvidia.com/gpu", quota::kMicro}};
  f.pool = "a100";
  f.tenant = "ml";
  f.pods_waiting = 4;
  m.publish({{"ml/train", f}});
  m.publish_pools({{"a100", {{"nvidia.com/gpu", 3 * quota::kMicro}}}});
  const std::string text = metrics::render_text(registry);
  const auto check = test::promtool_check_metrics(*promtool, text);
  EXPECT_EQ(check.exit_code, 0) << "promtool says:\n" << check.output << "\non:\n" << text;
  EXPECT_EQ(check.output, "") << text;
}

}  // namespace
}  // namespace gpupool::quota_controller
