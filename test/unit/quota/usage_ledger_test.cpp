// UsageLedger: incremental totals equal a full recount after random events.
#include <gtest/gtest.h>

#include <random>

#include "gpupool/quota/usage_ledger.h"

namespace gpupool::quota {
namespace {

TEST(UsageLedger, MovesOnlyThePodsCharge) {
  UsageLedger l;
  const Amounts one{{"nvidia.com/gpu", kMicro}};
  EXPECT_TRUE(l.set("ml/a", PodCharge{"ml/q", one, PodQuotaState::waiting}));
  EXPECT_EQ(l.waiting("ml/q"), one);
  EXPECT_TRUE(l.used("ml/q").empty());
  EXPECT_TRUE(l.set("ml/a", PodCharge{"ml/q", one, PodQuotaState::admitted}));  // past the gate
  EXPECT_EQ(l.used("ml/q"), one);
  EXPECT_TRUE(l.waiting("ml/q").empty());
  EXPECT_FALSE(l.set("ml/a", PodCharge{"ml/q", one, PodQuotaState::admitted})) << "nothing changed";
  EXPECT_TRUE(l.set("ml/a", std::nullopt));  // terminated
  EXPECT_TRUE(l.used("ml/q").empty());
  EXPECT_FALSE(l.set("ml/a", std::nullopt));
  EXPECT_EQ(l.pods(), 0u);
}

TEST(UsageLedger, TenThousandRandomEventsEqualARecount) {
  std::mt19937 rng(42);
  UsageLedger l;
  const std::vector<std::string> quotas = {"a/q", "b/q", "c/q"};
  const std::vector<std::string> resources = {"nvidia.com/gpu", "nvidia.com/mig-1g.10gb", "gpupool.io/gpu"};
  for (int i = 0; i < 10000; ++i) {
    const std::string pod = "p" + std::to_string(rng() % 300);
    if (rng() % 4 == 0) {
      l.set(pod, std::nullopt);
      continue;
    }
    PodCharge c;
    c.quota = quotas[rng() % quotas.size()];
    c.charge[resources[rng() % resources.size()]] = static_cast<std::int64_t>(1 + rng() % 4) * kMicro;
    if (rng() % 2) c.charge[std::string(kGpuUnit)] = static_cast<std::int64_t>(rng() % 1000) * 1000 + 1;
    c.state = rng() % 3 == 0 ? PodQuotaState::waiting : PodQuotaState::admitted;
    l.set(pod, c);
  }
  EXPECT_GT(l.pods(), 100u);
  EXPECT_EQ(l.all_used(), l.recount_used());
  EXPECT_EQ(l.all_waiting(), l.recount_waiting());
  EXPECT_LE(l.names(), quotas.size() + resources.size() + 1);
  for (int i = 0; i < 300; ++i) l.set("p" + std::to_string(i), std::nullopt);
  EXPECT_EQ(l.pods(), 0u);
  EXPECT_EQ(l.names(), 0u) << "names no pod holds are let go";
  EXPECT_TRUE(l.all_used().empty());
  EXPECT_TRUE(l.all_waiting().empty());
}

TEST(UsageLedger, ANewChargeOfTheSamePodReplacesTheOld) {
  UsageLedger l;
  const Amounts one{{"nvidia.com/gpu", kMicro}}, two{{"nvidia.com/gpu", 2 * kMicro}, {"gpupool.io/gpu", 2 * kMicro}};
  EXPECT_TRUE(l.set("ml/a", PodCharge{"ml/q", one, PodQuotaState::admitted}));
  EXPECT_TRUE(l.set("ml/a", PodCharge{"ml/q", two, PodQuotaState::admitted}));
  EXPECT_EQ(l.used("ml/q"), two);
  EXPECT_FALSE(l.set("ml/a", PodCharge{"ml/q", two, PodQuotaState::admitted}));
  EXPECT_TRUE(l.set("ml/a", PodCharge{"ml/other", two, PodQuotaState::admitted}));
  EXPECT_TRUE(l.used("ml/q").empty());
  EXPECT_EQ(l.used("ml/other"), two);
  EXPECT_EQ(l.names(), 3u) << "ml/other, nvidia.com/gpu, gpupool.io/gpu";
  EXPECT_TRUE(l.set("ml/a", PodCharge{"ml/other", one, PodQuotaState::admitted}));  // two resources to one
  EXPECT_EQ(l.used("ml/other"), one);
  EXPECT_TRUE(l.set("ml/b", PodCharge{"ml/other", {}, PodQuotaState::admitted}));  // none
  EXPECT_FALSE(l.set("ml/b", PodCharge{"ml/other", {}, PodQuotaState::admitted}));
  EXPECT_EQ(l.used("ml/other"), one);
  EXPECT_EQ(l.all_used(), l.recount_used());
}

}  // namespace
}  // namespace gpupool::quota
