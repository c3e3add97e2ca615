// What a TenantQuota may use above its grant now (borrowing), by resource.
// Pure.
//
// Nothing unless the pool's GPUPolicy enables borrowing. Then, per device
// resource: the tenant's spec.borrowingLimit (under manual approval no more
// than the approved borrowingLimit), capped by borrowing.limitPercent of
// its grant when that is set; with no borrowingLimit for the resource,
// limitPercent of its grant (0: nothing). Whole devices (rounded down), or
// thousandths of a GPU for gpupool.io/gpu (its grain, amounts.h).
// Borrowed capacity is only what no admitted pod holds (the pool's free
// capacity, admission.h): lenders get it back by reclaim (choose_reclaim).
#pragma once

#include <cstdint>
#include <optional>

#include "gpupool/quota/amounts.h"

namespace gpupool::quota {

struct BorrowingRules {
  bool enabled = false;
  std::int32_t limit_percent = 0;
  bool manual_approval = false;
};

Amounts borrowing_allowance(const Amounts& granted, const Amounts& tenant_limit,
                            const std::optional<Amounts>& approved_limit, const BorrowingRules& rules);

}  // namespace gpupool::quota
