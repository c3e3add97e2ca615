// Which requests get which fault: seeded draws, rules, delays, refusal.
#include "gpupool/faultproxy/fault_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace gpupool::faultproxy {
namespace {

using namespace std::chrono_literals;

// The status each of `n` GETs gets (0: forwarded).
std::vector<int> statuses(FaultPlan& plan, int n) {
  std::vector<int> out;
  for (int i = 0; i < n; ++i) {
    const Decision d = plan.decide("GET", "/api/v1/pods", "");
    out.push_back(d.fault ? d.fault->status : 0);
  }
  return out;
}

TEST(FaultPlan, TheSameSeedGivesTheSameFaults) {
  FaultPlan a(42);
  FaultPlan b(42);
  FaultPlan c(43);
  for (FaultPlan* p : {&a, &b, &c}) p->set_error_share(500, 0.3);
  const auto sa = statuses(a, 200);
  EXPECT_EQ(sa, statuses(b, 200));
  EXPECT_NE(sa, statuses(c, 200));
  // Request i is faulted exactly when its draw falls in the share.
  for (std::size_t i = 0; i < sa.size(); ++i) EXPECT_EQ(sa[i] == 500, FaultPlan::draw(42, i) < 0.3) << i;
  const auto faulted = std::count(sa.begin(), sa.end(), 500);
  EXPECT_GT(faulted, 35);
  EXPECT_LT(faulted, 85);
}

TEST(FaultPlan, SharesLieEndToEndInTheOrderTheyWereSet) {
  FaultPlan plan(7);
  plan.set_error_share(429, 0.2);
  plan.set_error_share(500, 0.3);
  for (std::uint64_t i = 0; i < 100; ++i) {
    const double u = FaultPlan::draw(7, i);
    const Decision d = plan.decide("GET", "/x", "");
    const int expected = u < 0.2 ? 429 : u < 0.5 ? 500 : 0;
    EXPECT_EQ(d.fault ? d.fault->status : 0, expected) << i;
    if (expected == 429) {
      EXPECT_EQ(d.fault->effective_retry_after(), 1);
    } else if (expected == 500) {
      EXPECT_EQ(d.fault->effective_retry_after(), 0);
    }
  }
}

TEST(FaultPlan, SetSeedRestartsTheSequenceAndShareZeroRemoves) {
  FaultPlan plan(5);
  plan.set_error_share(503, 0.5);
  const auto first = statuses(plan, 50);
  plan.set_seed(5);
  EXPECT_EQ(statuses(plan, 50), first);
  plan.set_error_share(503, 0);
  EXPECT_EQ(statuses(plan, 50), std::vector<int>(50, 0));
}

TEST(FaultPlan, RulesApplyToTheNextMatchingRequestsFirst) {
  FaultPlan plan;
  plan.set_error_share(500, 1.0);
  plan.add_rule({{.method = "PUT", .path_prefix = "/apis/"}, Fault::error(409), 2});
  plan.add_rule({{.query_contains = "watch=true"}, Fault::cut(), 1});
  EXPECT_EQ(plan.decide("PUT", "/apis/x", "").fault->status, 409);
  EXPECT_EQ(plan.decide("PUT", "/api/x", "").fault->status, 500);  // no rule fits: the share
  EXPECT_EQ(plan.decide("GET", "/api/x", "watch=true").fault->kind, Fault::Kind::Cut);
  EXPECT_EQ(plan.decide("PUT", "/apis/y", "").fault->status, 409);
  EXPECT_EQ(plan.decide("PUT", "/apis/y", "").fault->status, 500);  // rule used up
  EXPECT_EQ(plan.decide("GET", "/api/x", "watch=true").fault->status, 500);
}

TEST(FaultPlan, DelaysAddUpAndForward) {
  FaultPlan plan;
  plan.set_delay(100ms);
  plan.add_rule({{}, Fault::delayed(250ms), 1});
  Decision d = plan.decide("GET", "/", "");
  EXPECT_EQ(d.delay, 350ms);
  EXPECT_FALSE(d.fault);
  d = plan.decide("GET", "/", "");
  EXPECT_EQ(d.delay, 100ms);
  EXPECT_EQ(d.index, 1u);
  plan.reset();
  EXPECT_EQ(plan.decide("GET", "/", "").delay, 0ms);
}

TEST(FaultPlan, RefusesForAWhile) {
  FaultPlan plan;
  EXPECT_FALSE(plan.refusing());
  plan.refuse_for(10min);
  EXPECT_TRUE(plan.refusing());
  plan.refuse_for(0ms);
  EXPECT_FALSE(plan.refusing());
  plan.refuse_for(10min);
  plan.reset();
  EXPECT_FALSE(plan.refusing());
}

TEST(FaultPlan, RejectsNonsense) {
  FaultPlan plan;
  EXPECT_THROW(plan.set_error_share(200, 0.5), std::invalid_argument);
  EXPECT_THROW(plan.set_error_share(500, 1.5), std::invalid_argument);
  EXPECT_THROW(plan.set_error_share(500, -0.1), std::invalid_argument);
  EXPECT_THROW(plan.add_rule({{}, Fault::error(500), 0}), std::invalid_argument);
  EXPECT_THROW(plan.add_rule({{}, Fault::error(302), 1}), std::invalid_argument);
}

TEST(FaultPlan, DrawsAreFractions) {
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const double u = FaultPlan::draw(i * 31, i);
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
}

}  // namespace
}  // namespace gpupool::faultproxy
