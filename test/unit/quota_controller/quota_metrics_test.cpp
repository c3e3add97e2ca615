// The quota gauges: names, labels and values in the exposition; series of
// quotas or resources that went leave it.
#include <gtest/gtest.h>

#include "gpupool/metrics/exposition.h"
#include "gpupool/quota_controller/quota_metrics.h"

namespace gpupool::quota_controller {
namespace {

TEST(QuotaMetrics, PublishesEachFigureAndDropsWhatWent) {
  metrics::Registry registry;
  QuotaMetrics m(registry);
  QuotaFigures train;
  train.granted = {{"nvidia.com/gpu", 6 * quota::kMicro}};
  train.used = {{"nvidia.com/gpu", 8 * quota::kMicro}};
  train.waiting = {{"nvidia.com/gpu", 194 * quota::kMicro}};
  train.borrowed = {{"nvidia.com/gpu", 2 * quota::kMicro}};
  train.pool = "a100";
  QuotaFigures units;
  units.pool = "h100";
  units.used = {{"gpupool.io/gpu", 428571}};
  m.publish({{"ml/train", train}, {"ml/units", units}});
  std::string text = metrics::render_text(registry);
  for (const char* line : {R"(gpupool_tenantquota_granted{namespace="ml",name="train",resource="nvidia.com/gpu"} 6)",
                           R"(gpupool_tenantquota_used{namespace="ml",name="train",resource="nvidia.com/gpu"} 8)",
                           R"(gpupool_tenantquota_waiting{namespace="ml",name="train",resource="nvidia.com/gpu"} 194)",
                           R"(gpupool_tenantquota_borrowed{namespace="ml",name="train",resource="nvidia.com/gpu"} 2)",
                           R"(gpupool_tenantquota_used{namespace="ml",name="units",resource="gpupool.io/gpu"} 0.428571)",
                           R"(gpupool_tenantquota_info{namespace="ml",name="train",pool="a100"} 1)",
                           R"(gpupool_tenantquota_info{namespace="ml",name="units",pool="h100"} 1)"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }

  train.borrowed.clear();
  m.publish({{"ml/train", train}});  // ml/units deleted, nothing borrowed any more
  text = metrics::render_text(registry);
  EXPECT_EQ(text.find(R"(name="units")"), std::string::npos) << text;
  EXPECT_EQ(text.find(R"(gpupool_tenantquota_borrowed{)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(gpupool_tenantquota_used{namespace="ml",name="train",resource="nvidia.com/gpu"} 8)"), std::string::npos);
}

}  // namespace
}  // namespace gpupool::quota_controller
