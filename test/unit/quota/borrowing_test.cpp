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
      // gpupool.io/gpu has no borrowingLimit here: 50% of its grant of 2.
      {"capped by the policy's percent of the grant", {{"nvidia.com/gpu", 3 * M}}, std::nullopt, {true, 50, false},
       {{"nvidia.com/gpu", 2 * M}, {"gpupool.io/gpu", 1 * M}}},
      // 2.4 devices round down to whole devices; 1.2 GPUs' worth is exact.
      {"percent alone", {}, std::nullopt, {true, 60, false}, {{"nvidia.com/gpu", 2 * M}, {"gpupool.io/gpu", 1'200'000}}},
      // 33% of 2 GPUs' worth is 0.66 (thousandths); of 4 devices, 1.32 -> 1.
      {"units round to thousandths", {}, std::nullopt, {true, 33, false}, {{"nvidia.com/gpu", 1 * M}, {"gpupool.io/gpu", 660'000}}},
      {"no limit, no percent: nothing", {}, std::nullopt, {true, 0, false}, {}},
      {"manual: no more than approved", {{"nvidia.com/gpu", 3 * M}}, Amounts{{"nvidia.com/gpu", 1 * M}}, {true, 0, true},
       {{"nvidia.com/gpu", 1 * M}}},
      {"manual, nothing approved yet", {{"nvidia.com/gpu", 3 * M}}, std::nullopt, {true, 0, true}, {}},
      {"units are borrowed like devices", {{"gpupool.io/gpu", M / 2}}, std::nullopt, {true, 100, false},
       {{"nvidia.com/gpu", 4 * M}, {"gpupool.io/gpu", M / 2}}},
      {"a quota granted nothing may borrow its limit", {{"nvidia.com/mig-1g.10gb", 2 * M}}, std::nullopt, {true, 0, false},
       {{"nvidia.com/mig-1g.10gb", 2 * M}}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(borrowing_allowance(granted, c.tenant_limit, c.approved, c.rules), c.want) << c.name;
  }
}

}  // namespace
}  // namespace gpupool::quota
