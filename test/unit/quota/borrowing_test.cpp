// Borrowing allowance by the policy's rules, worked out by hand.
#include <gtest/gtest.h>

#include "gpupool/quota/borrowing.h"

namespace gpupool::quota {
namespace {

constexpr std::int64_t M = kMicro;

TEST(Borrowing, AllowanceByTheRules) {
  const Amounts granted{{"nvidia.com/gpu", 4 * M}, {"gpupool.io/gpu", 2 * M}};
  struct Case {
    const char* name;
    Amounts tenant_limit;
    std::optional<Amounts> approved;
    BorrowingRules rules;
    Amounts want;
  };
  const Case cases[] = {
      {"borrowing off", {{"nvidia.com/gpu", 2 * M}}, std::nullopt, {false, 0, false}, {}},
      {"the tenant's limit", {{"nvidia.com/gpu", 2 * M}}, std::nullopt, {true, 0, false}, {{"nvidia.com/gpu", 2 * M}}},
      {"capped by the policy's percent of the grant", {{"nvidia.com/gpu", 3 * M}}, std::nullopt, {true, 50, false},
       {{"nvidia.com/gpu", 2 * M}}},
      {"percent alone", {}, std::nullopt, {true, 60, false}, {{"nvidia.com/gpu", 2 * M}}},  // 2.4 rounds down to whole devices
      {"no limit, no percent: nothing", {}, std::nullopt, {true, 0, false}, {}},
      {"manual: no more than approved", {{"nvidia.com/gpu", 3 * M}}, Amounts{{"nvidia.com/gpu", 1 * M}}, {true, 0, true},
       {{"nvidia.com/gpu", 1 * M}}},
      {"manual, nothing approved yet", {{"nvidia.com/gpu", 3 * M}}, std::nullopt, {true, 0, true}, {}},
      {"units are never borrowed", {{"gpupool.io/gpu", M}}, std::nullopt, {true, 100, false}, {{"nvidia.com/gpu", 4 * M}}},
      {"a quota granted nothing may borrow its limit", {{"nvidia.com/mig-1g.10gb", 2 * M}}, std::nullopt, {true, 0, false},
       {{"nvidia.com/mig-1g.10gb", 2 * M}}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(borrowing_allowance(granted, c.tenant_limit, c.approved, c.rules), c.want) << c.name;
  }
}

}  // namespace
}  // namespace gpupool::quota
