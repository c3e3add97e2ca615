// decide_admissions and choose_reclaim against tables worked out by hand.
#include <gtest/gtest.h>

#include "gpupool/quota/admission.h"

namespace gpupool::quota {
namespace {

constexpr const char* kGpu = "nvidia.com/gpu";
Amounts gpus(std::int64_t n) { return {{kGpu, n * kMicro}}; }

GatedPod pod(const std::string& key, const std::string& quota, std::int64_t n, std::int32_t priority = 0,
             std::int64_t created = 0) {
  return {key, quota, priority, created, gpus(n), gpus(n)};
}

QuotaBudget budget(const std::string& key, std::int64_t limit, std::int64_t used = 0, std::int32_t weight = 1) {
  return {key, weight, gpus(limit), used ? gpus(used) : Amounts{}, "pool", std::nullopt};
}

TEST(DecideAdmissions, OrderTable) {
  struct Row {
    std::string name;
    std::vector<GatedPod> pods;
    std::vector<QuotaBudget> budgets;
    std::vector<std::string> admit;
  };
  const std::vector<Row> rows = {
      {"within the limit, oldest first", {pod("a/p2", "a/q", 2, 0, 20), pod("a/p1", "a/q", 2, 0, 10), pod("a/p3", "a/q", 2, 0, 30)},
       {budget("a/q", 4)}, {"a/p1", "a/p2"}},
      {"priority before age", {pod("a/old", "a/q", 2, 0, 1), pod("a/urgent", "a/q", 2, 5, 9)}, {budget("a/q", 2)}, {"a/urgent"}},
      {"a pod too big does not block smaller ones", {pod("a/big", "a/q", 4, 0, 1), pod("a/small", "a/q", 1, 0, 2)},
       {budget("a/q", 3)}, {"a/small"}},
      {"usage counts", {pod("a/p", "a/q", 2)}, {budget("a/q", 4, 3)}, {}},
      // a is at 2/4 used, b at 0/4: b's pod goes first, then shares alternate.
      {"fair share between quotas", {pod("a/p1", "a/q", 1, 0, 1), pod("a/p2", "a/q", 1, 0, 2), pod("b/p1", "b/q", 1, 0, 3),
                                     pod("b/p2", "b/q", 1, 0, 4)},
       {budget("a/q", 4, 2), budget("b/q", 4)}, {"b/p1", "b/p2", "a/p1", "a/p2"}},
      {"a pod without a quota waits", {pod("x/p", "x/q", 1)}, {budget("a/q", 4)}, {}},
  };
  for (const auto& row : rows) {
    const auto d = decide_admissions(row.pods, row.budgets);
    EXPECT_EQ(d.admit, row.admit) << row.name;
    EXPECT_EQ(d.admit.size() + d.waiting.size(), row.pods.size()) << row.name;
  }
}

TEST(DecideAdmissions, WaitingSaysWhyInNumbers) {
  const auto d = decide_admissions({pod("ml/train-0", "ml/quota", 2), pod("ml/train-1", "ml/quota", 2), pod("x/p", "x/q", 1)},
                                   {budget("ml/quota", 3, 1)});
  EXPECT_EQ(d.admit, (std::vector<std::string>{"ml/train-0"}));
  EXPECT_EQ(d.waiting.at("ml/train-1"), "needs 2 nvidia.com/gpu, TenantQuota ml/quota uses 3 of 3");
  EXPECT_EQ(d.waiting.at("x/p"), "no granted TenantQuota x/q covers the pod");
}

// 200 pods at once never take a quota past its limit in one pass.
TEST(DecideAdmissions, NeverPastTheLimit) {
  std::vector<GatedPod> pods;
  for (int i = 0; i < 200; ++i) pods.push_back(pod("t/p" + std::to_string(i), "t/q", 1 + i % 3, i % 4, i));
  const auto d = decide_admissions(pods, {budget("t/q", 50)});
  std::int64_t total = 0;
  for (const auto& key : d.admit) {
    for (const auto& p : pods) total += p.key == key ? p.charge.at(kGpu) : 0;
  }
  EXPECT_LE(total, 50 * kMicro);
  EXPECT_GE(total, 48 * kMicro) << "space a 1- or 2-GPU pod would fill was left";
}

// The pool's free capacity binds too: borrowing takes only what no admitted
// pod holds; a pod within its guarantee that finds the pool full is short of
// its guarantee (what reclaim must free), one borrowing is not.
TEST(DecideAdmissions, PoolCapacityAndTheShortfallOfGuarantees) {
  QuotaBudget lender = budget("a/q", 2);  // granted 2, no borrowing
  lender.granted = gpus(2);
  QuotaBudget borrower = budget("b/q", 4, 2);  // granted 2, may borrow 2, uses 2
  borrower.granted = gpus(2);
  const std::map<std::string, Amounts> free{{"pool", gpus(1)}};  // 4 GPUs: b holds 2, 1 borrowed... 1 free

  const auto d = decide_admissions({pod("a/p1", "a/q", 1, 0, 1), pod("a/p2", "a/q", 1, 0, 2), pod("b/p3", "b/q", 1, 0, 0)},
                                   {lender, borrower}, free);
  EXPECT_EQ(d.admit, (std::vector<std::string>{"a/p1"})) << "the lender's smaller share goes first and takes the free GPU";
  EXPECT_EQ(d.waiting.at("a/p2"), "pool pool has 0 nvidia.com/gpu free, needs 1 more");
  EXPECT_EQ(d.waiting.at("b/p3"), "pool pool has 0 nvidia.com/gpu free, needs 1 more");
  EXPECT_EQ(d.short_of_guarantee, (std::set<std::string>{"a/p2"})) << "b/p3 would borrow: it is not owed capacity";
  EXPECT_EQ(d.shortfall.at("pool"), gpus(1));

  // Pods within their guarantee go before pods that would borrow, however old these are.
  const auto first = decide_admissions({pod("b/old", "b/q", 1, 0, 0), pod("a/new", "a/q", 1, 0, 9)}, {lender, borrower},
                                       {{"pool", gpus(1)}});
  EXPECT_EQ(first.admit, (std::vector<std::string>{"a/new"}));
  EXPECT_TRUE(first.short_of_guarantee.empty());

  // Five waiting pods of a quota guaranteed two GPUs, the pool full: two are
  // owed, so reclaim must free two, not five.
  const auto owed = decide_admissions({pod("a/p1", "a/q", 1, 0, 1), pod("a/p2", "a/q", 1, 0, 2), pod("a/p3", "a/q", 1, 0, 3),
                                       pod("a/p4", "a/q", 1, 0, 4), pod("a/p5", "a/q", 1, 0, 5)},
                                      {lender}, {{"pool", gpus(0)}});
  EXPECT_EQ(owed.short_of_guarantee, (std::set<std::string>{"a/p1", "a/p2"}));
  EXPECT_EQ(owed.shortfall.at("pool"), gpus(2));

  // A pool that does not list a resource does not limit it.
  const auto unlimited = decide_admissions({pod("a/p1", "a/q", 2)}, {lender}, {{"pool", {{"amd.com/gpu", 0}}}});
  EXPECT_EQ(unlimited.admit, (std::vector<std::string>{"a/p1"}));
}

// A quota in gpupool.io/gpu borrows in units: granted one GPU's worth, it may
// use 1.5 with borrowing; 3g.40gb slices cost 3/7 each; the pool's free slices
// bound it too, and the slices of pods within the guarantee go first.
TEST(DecideAdmissions, UnitQuotasBorrowInUnits) {
  const std::string unit(kGpuUnit), mig3 = "nvidia.com/mig-3g.40gb";
  auto slice_pod = [&](const std::string& key, std::int64_t created) {
    return GatedPod{key, "u/q", 0, created, {{unit, 428'571}}, {{mig3, kMicro}}};
  };
  const QuotaBudget units{"u/q", 1, {{unit, 1'500'000}}, {}, "pool", Amounts{{unit, kMicro}}};
  std::vector<GatedPod> pods;
  for (int i = 0; i < 5; ++i) pods.push_back(slice_pod("u/p" + std::to_string(i), i));
  // 3 x 3/7 = 1.29 fits 1.5; a fourth (1.71) does not.
  const auto d = decide_admissions(pods, {units}, {{"pool", {{mig3, 6 * kMicro}}}});
  EXPECT_EQ(d.admit, (std::vector<std::string>{"u/p0", "u/p1", "u/p2"}));
  EXPECT_EQ(d.waiting.at("u/p3"), "needs 0.428571 gpupool.io/gpu, TenantQuota u/q uses 1.285713 of 1.5");
  EXPECT_TRUE(d.short_of_guarantee.empty());
  // Only one slice free: the pod within the guarantee takes it; none borrows.
  const auto one = decide_admissions(pods, {units}, {{"pool", {{mig3, kMicro}}}});
  EXPECT_EQ(one.admit, (std::vector<std::string>{"u/p0"}));
  // No slice free: the two pods the guarantee holds (6/7) wait short of it,
  // two slices in all; the others would borrow and add nothing to reclaim.
  const auto none = decide_admissions(pods, {units}, {{"pool", {{mig3, 0}}}});
  EXPECT_TRUE(none.admit.empty());
  EXPECT_EQ(none.short_of_guarantee, (std::set<std::string>{"u/p0", "u/p1"}));
  EXPECT_EQ(none.shortfall.at("pool"), (Amounts{{mig3, 2 * kMicro}}));
}

TEST(ChooseReclaim, OnlyBorrowedUsageLowestPriorityNewestFirst) {
  // b borrows 3 above its guarantee of 2; c is within its guarantee.
  const std::vector<QuotaUsage> quotas = {{"a/q", gpus(4), gpus(1)}, {"b/q", gpus(2), gpus(5)}, {"c/q", gpus(2), gpus(2)}};
  const std::vector<RunningPod> running = {
      {"b/old", "b/q", 0, 100, gpus(1), gpus(1)}, {"b/new", "b/q", 0, 300, gpus(1), gpus(1)},
      {"b/mid", "b/q", 0, 200, gpus(1), gpus(1)}, {"b/high", "b/q", 9, 400, gpus(2), gpus(2)},
      {"c/p", "c/q", -5, 500, gpus(2), gpus(2)},
  };
  EXPECT_EQ(choose_reclaim(gpus(2), quotas, running), (std::vector<std::string>{"b/new", "b/mid"}));
  // Needing more than b borrows: b stops once its borrowed 3 are back; c is never touched.
  EXPECT_EQ(choose_reclaim(gpus(6), quotas, running), (std::vector<std::string>{"b/new", "b/mid", "b/old"}));
  EXPECT_TRUE(choose_reclaim({}, quotas, running).empty());
  // A resource nobody borrows frees nothing.
  EXPECT_TRUE(choose_reclaim({{"amd.com/gpu", kMicro}}, quotas, running).empty());
}

// Quotas in gpupool.io/gpu borrow in units; lenders need devices. A pod helps
// while it holds a needed device and its quota still borrows units.
TEST(ChooseReclaim, UnitQuotasGiveBackTheDevicesLendersNeed) {
  const std::string unit(kGpuUnit);
  const std::string mig3 = "nvidia.com/mig-3g.40gb", mig1 = "nvidia.com/mig-1g.10gb";
  const auto u = [&](std::int64_t micro) { return Amounts{{unit, micro}}; };
  // b is granted 1 GPU's worth and uses 3/7 + 3/7 + 1/7 + 3/7 = 10/7: it borrows 3/7.
  // d counts mig-3g itself, within its guarantee.
  const std::vector<QuotaUsage> quotas = {{"b/q", u(kMicro), u(1'428'571)}, {"d/q", {{mig3, kMicro}}, {{mig3, kMicro}}}};
  const std::vector<RunningPod> running = {
      {"b/3g-old", "b/q", 0, 100, u(428'571), {{mig3, kMicro}}},
      {"b/3g-mid", "b/q", 0, 200, u(428'571), {{mig3, kMicro}}},
      {"b/1g-new", "b/q", 0, 400, u(142'857), {{mig1, kMicro}}},
      {"b/3g-new", "b/q", 0, 300, u(428'571), {{mig3, kMicro}}},
      {"d/3g", "d/q", -9, 500, {{mig3, kMicro}}, {{mig3, kMicro}}},
  };
  // A lender waits for one 3g slice: b's newest pod holding one goes (the 1g
  // pod is newer but frees nothing needed); b then borrows no more.
  const Amounts one_3g{{mig3, kMicro}};
  EXPECT_EQ(choose_reclaim(one_3g, quotas, running), (std::vector<std::string>{"b/3g-new"}));
  // Two are needed, but after the first b no longer borrows: d's guaranteed pod is never taken.
  EXPECT_EQ(choose_reclaim({{mig3, 2 * kMicro}}, quotas, running), (std::vector<std::string>{"b/3g-new"}));
  // b within its guarantee gives nothing.
  EXPECT_TRUE(choose_reclaim(one_3g, {{"b/q", u(2 * kMicro), u(1'428'571)}}, running).empty());
  // The quota's own limit (expiry, capacity loss): need and frees are charges.
  std::vector<RunningPod> own = running;
  for (auto& p : own) p.frees = p.charge;
  EXPECT_EQ(choose_reclaim(u(500'000), quotas, own), (std::vector<std::string>{"b/1g-new", "b/3g-new"}));
}

// The race reclaim once lost (issue 16): the pool's shortfall is decided from
// what pods held then, and the pods to take are read later. Pods that left
// meanwhile, or are leaving, count as given back, never as still needed.
TEST(ReclaimForLenders, PodsThatLeftSinceTheDecisionAreNotNeededAgain) {
  // A pool of 4: the lender is guaranteed 2, the borrower 2 (and borrowed 2).
  auto running = [](std::initializer_list<const char*> keys) {
    std::vector<RunningPod> out;
    std::int64_t created = 0;
    for (const char* k : keys) {
      const std::string key = k;
      out.push_back({key, key.starts_with("b/") ? "b/q" : "l/q", 0, created += 100, gpus(1), gpus(1)});
    }
    return out;
  };
  const std::map<std::string, Amounts> granted = {{"b/q", gpus(2)}, {"l/q", gpus(2)}};
  struct Row {
    std::string name;
    Amounts shortfall;
    std::map<std::string, Amounts> held;  // when the shortfall was decided
    std::vector<RunningPod> now;
    std::vector<std::string> evict;
  };
  const std::vector<Row> rows = {
      {"the lender waits for 2, nothing left yet: the borrower's two newest go", gpus(2),
       {{"b/0", gpus(1)}, {"b/1", gpus(1)}, {"b/2", gpus(1)}, {"b/3", gpus(1)}},
       running({"b/0", "b/1", "b/2", "b/3"}), {"b/3", "b/2"}},
      // The run that failed: b/3 and b/2 evicted, l/0 admitted on b/3's device;
      // l/1 short by 1 while b/2 held its device; then b/2 gone from the
      // informer's store (or still terminating) before the pods were read.
      {"b/2 held then, terminating or gone now: nothing more is taken", gpus(1),
       {{"b/0", gpus(1)}, {"b/1", gpus(1)}, {"b/2", gpus(1)}, {"l/0", gpus(1)}},
       running({"b/0", "b/1", "l/0"}), {}},
      {"deleted by its owner after the decision: counts as given back", gpus(2),
       {{"b/0", gpus(1)}, {"b/1", gpus(1)}, {"b/2", gpus(1)}, {"b/3", gpus(1)}},
       running({"b/0", "b/1", "b/2"}), {"b/2"}},
      {"leaving pods do not make the borrower look as if it still borrowed: its guarantee stays", gpus(3),
       {{"b/0", gpus(1)}, {"b/1", gpus(1)}, {"b/2", gpus(1)}, {"b/3", gpus(1)}},
       running({"b/0", "b/1"}), {}},
      {"a pod admitted since the decision frees nothing needed but may be taken while its quota borrows", gpus(1),
       {{"b/0", gpus(1)}, {"b/1", gpus(1)}, {"b/2", gpus(1)}, {"l/0", gpus(1)}},
       running({"b/0", "b/1", "b/2", "l/0", "b/4"}), {"b/4"}},
      {"nothing short: nothing taken", {}, {{"b/0", gpus(1)}, {"b/1", gpus(1)}, {"b/2", gpus(1)}},
       running({"b/0", "b/1", "b/2"}), {}},
  };
  for (const auto& row : rows) {
    EXPECT_EQ(reclaim_for_lenders(row.shortfall, row.held, granted, row.now), row.evict) << row.name;
  }
}

TEST(ReclaimAbove, OnlyWhatTheRunningPodsAreChargedAboveWhatIsKept) {
  const std::vector<RunningPod> running = {
      {"b/old", "b/q", 0, 100, gpus(1), {}}, {"b/new", "b/q", 0, 300, gpus(2), {}}, {"b/mid", "b/q", 0, 200, gpus(1), {}}};
  EXPECT_EQ(reclaim_above(gpus(1), "b/q", running), (std::vector<std::string>{"b/new", "b/mid"}));
  EXPECT_EQ(reclaim_above(gpus(2), "b/q", running), (std::vector<std::string>{"b/new"}));
  EXPECT_TRUE(reclaim_above(gpus(4), "b/q", running).empty());
  // Expired with Evict: nothing is kept.
  EXPECT_EQ(reclaim_above({}, "b/q", running), (std::vector<std::string>{"b/new", "b/mid", "b/old"}));
  // A pod already leaving is not listed: the rest fit.
  EXPECT_TRUE(reclaim_above(gpus(2), "b/q", {running[0], running[2]}).empty());
}

}  // namespace
}  // namespace gpupool::quota
