// UsageLedger: incremental totals equal a full recount after random events.
#include <gtest/gtest.h>

#include <algorithm>
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

TEST(UsageLedger, UsedByPodListsTheAdmittedPodsOfTheAccountsAsked) {
  UsageLedger l;
  const Amounts one{{"nvidia.com/gpu", kMicro}}, two{{"nvidia.com/gpu", 2 * kMicro}, {"amd.com/gpu", kMicro}};
  l.set("ml/a", PodCharge{"pool-a", one, PodQuotaState::admitted}, 1);
  l.set("ml/b", PodCharge{"pool-a", two, PodQuotaState::admitted}, 1);
  l.set("ml/c", PodCharge{"pool-a", one, PodQuotaState::waiting}, 1);  // at the gate: holds nothing
  l.set("ml/d", PodCharge{"pool-b", one, PodQuotaState::admitted}, 1);
  l.set("ml/e", PodCharge{"pool-a", one, PodQuotaState::admitted}, 0);  // another book
  const auto held = l.used_by_pod({"pool-a", "pool-c"}, 1);
  EXPECT_EQ(held, (std::map<std::string, std::map<std::string, Amounts>>{
                      {"pool-a", {{"ml/a", one}, {"ml/b", two}}}, {"pool-c", {}}}));
  EXPECT_TRUE(l.used_by_pod({}, 1).empty());
  // What it lists adds up to the account's total.
  Amounts sum;
  for (const auto& [pod, charge] : held.at("pool-a")) sum = add(sum, charge);
  EXPECT_EQ(sum, l.used("pool-a", 1));
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

// Two books (the admission reconciler's by quota and by pool): totals kept
// apart, one entry per pod until it is charged in neither.
TEST(UsageLedger, BooksKeepTheirOwnTotalsAndShareThePodsEntry) {
  UsageLedger l;
  const Amounts one{{"nvidia.com/gpu", kMicro}}, units{{"gpupool.io/gpu", 3 * kMicro}};
  EXPECT_TRUE(l.set("ml/a", PodCharge{"ml/q", units, PodQuotaState::admitted}, 0));
  EXPECT_TRUE(l.set("ml/a", PodCharge{"pool-a", one, PodQuotaState::admitted}, 1));
  EXPECT_EQ(l.pods(), 1u);
  EXPECT_EQ(l.used("ml/q", 0), units);
  EXPECT_TRUE(l.used("ml/q", 1).empty());
  EXPECT_EQ(l.used("pool-a", 1), one);
  EXPECT_TRUE(l.used("pool-a", 0).empty());
  EXPECT_FALSE(l.set("ml/a", PodCharge{"pool-a", one, PodQuotaState::admitted}, 1)) << "nothing changed";

  EXPECT_TRUE(l.set("ml/a", std::nullopt, 0));
  EXPECT_EQ(l.pods(), 1u) << "still charged in the pool book";
  EXPECT_TRUE(l.all_used(0).empty());
  EXPECT_EQ(l.used("pool-a", 1), one);
  EXPECT_FALSE(l.set("ml/a", std::nullopt, 0));
  EXPECT_TRUE(l.set("ml/a", std::nullopt, 1));
  EXPECT_EQ(l.pods(), 0u);
  EXPECT_EQ(l.names(), 0u);
  EXPECT_THROW(l.set("ml/a", std::nullopt, UsageLedger::kMaxBooks), std::out_of_range);
  EXPECT_THROW(l.used("x", UsageLedger::kMaxBooks), std::out_of_range);
}

TEST(UsageLedger, RandomEventsInTwoBooksEqualARecountOfEach) {
  std::mt19937 rng(7);
  UsageLedger l;
  for (int i = 0; i < 5000; ++i) {
    const std::string pod = "p" + std::to_string(rng() % 200);
    const std::size_t book = rng() % 2;
    if (rng() % 4 == 0) {
      l.set(pod, std::nullopt, book);
      continue;
    }
    PodCharge c;
    c.quota = (book == 0 ? "q" : "pool-") + std::to_string(rng() % 3);
    c.charge["nvidia.com/gpu"] = static_cast<std::int64_t>(1 + rng() % 4) * kMicro;
    if (rng() % 3 == 0) c.charge["gpupool.io/gpu"] = static_cast<std::int64_t>(1 + rng() % 8) * kMicro;
    c.state = rng() % 3 == 0 ? PodQuotaState::waiting : PodQuotaState::admitted;
    l.set(pod, c, book);
  }
  for (std::size_t book = 0; book < 2; ++book) {
    EXPECT_EQ(l.all_used(book), l.recount_used(book)) << "book " << book;
    EXPECT_EQ(l.all_waiting(book), l.recount_waiting(book)) << "book " << book;
  }
  for (int i = 0; i < 200; ++i) {
    l.set("p" + std::to_string(i), std::nullopt, 0);
    l.set("p" + std::to_string(i), std::nullopt, 1);
  }
  EXPECT_EQ(l.pods(), 0u);
  EXPECT_EQ(l.names(), 0u);
}


TEST(UsageLedger, TouchedAccountsAreTakenOncePerBook) {
  UsageLedger l;
  const Amounts one{{"nvidia.com/gpu", kMicro}};
  EXPECT_TRUE(l.take_touched().empty());
  l.set("ml/a", PodCharge{"ml/q", one, PodQuotaState::waiting});
  l.set("ml/b", PodCharge{"ml/q", one, PodQuotaState::admitted});
  l.set("ml/a", PodCharge{"ml/r", one, PodQuotaState::admitted});  // moved: both accounts
  l.set("ml/a", PodCharge{"pool-a", one, PodQuotaState::admitted}, 1);
  EXPECT_EQ(l.take_touched(), (std::vector<std::string>{"ml/q", "ml/r"})) << "each once, in order";
  EXPECT_TRUE(l.take_touched().empty()) << "taken";
  EXPECT_EQ(l.take_touched(1), std::vector<std::string>{"pool-a"}) << "books apart";
  l.set("ml/b", PodCharge{"ml/q", one, PodQuotaState::admitted});
  EXPECT_TRUE(l.take_touched().empty()) << "a set() that changes nothing touches nothing";
  l.set("ml/b", std::nullopt);
  EXPECT_EQ(l.take_touched(), std::vector<std::string>{"ml/q"}) << "a pod gone touches its account";
}

TEST(UsageLedger, EveryAccountWhoseTotalsMovedIsTouched) {
  std::mt19937 rng(11);
  UsageLedger l;
  auto snapshot = [&l] { return std::pair{l.all_used(), l.all_waiting()}; };
  auto totals_of = [](const auto& snap, const std::string& q) {
    auto u = snap.first.find(q);
    auto w = snap.second.find(q);
    return std::pair{u == snap.first.end() ? Amounts{} : u->second, w == snap.second.end() ? Amounts{} : w->second};
  };
  auto before = snapshot();
  for (int round = 0; round < 200; ++round) {
    for (int i = 0; i < 1 + static_cast<int>(rng() % 20); ++i) {
      const std::string pod = "p" + std::to_string(rng() % 50);
      if (rng() % 4 == 0) {
        l.set(pod, std::nullopt);
        continue;
      }
      PodCharge c;
      c.quota = "q" + std::to_string(rng() % 8);
      c.charge["nvidia.com/gpu"] = static_cast<std::int64_t>(1 + rng() % 3) * kMicro;
      c.state = rng() % 3 == 0 ? PodQuotaState::waiting : PodQuotaState::admitted;
      l.set(pod, c);
    }
    const auto touched = l.take_touched();
    const auto after = snapshot();
    for (int q = 0; q < 8; ++q) {
      const std::string account = "q" + std::to_string(q);
      if (totals_of(before, account) != totals_of(after, account)) {
        EXPECT_TRUE(std::binary_search(touched.begin(), touched.end(), account)) << account << " in round " << round;
      }
    }
    before = after;
  }
}

}  // namespace
}  // namespace gpupool::quota
