// pool_unit_costs: a pool's device resources priced in gpupool.io/gpu.
#include <gtest/gtest.h>

#include "gpupool/quota_controller/pool_unit_costs.h"

namespace gpupool::quota_controller {
namespace {

using quota::kMicro;

TEST(PoolUnitCosts, Table) {
  const auto& catalog = gpu::Catalog::builtin();
  api::GPUPool plain;
  const quota::Amounts capacity = {{"nvidia.com/gpu", 4 * kMicro},       {"nvidia.com/mig-3g.40gb", 2 * kMicro},
                                   {"nvidia.com/mig-1g.24gb.me.all", kMicro}, {"amd.com/gpu", 8 * kMicro},
                                   {"nvidia.com/mig-9g.1tb", kMicro},      {std::string(quota::kGpuUnit), 4 * kMicro}};
  const auto costs = pool_unit_costs(plain, capacity, catalog, quota::ChargeBasis::compute);
  EXPECT_EQ(costs.at("nvidia.com/gpu"), kMicro);
  EXPECT_EQ(costs.at("nvidia.com/mig-3g.40gb"), 428571);          // 3/7 (A100 80GB, H100 ...)
  EXPECT_EQ(costs.at("nvidia.com/mig-1g.24gb.me.all"), 250000);   // 1/4 on RTX PRO 6000, '+' written '.'
  EXPECT_EQ(costs.at("amd.com/gpu"), kMicro) << "partitions not known from the spec: a whole GPU";
  EXPECT_EQ(costs.at("nvidia.com/mig-9g.1tb"), kMicro) << "unknown profile: a whole GPU";
  EXPECT_FALSE(costs.count(std::string(quota::kGpuUnit)));

  api::GPUPool sliced;
  sliced.spec.sharing.mode = api::SharingMode::time_slicing;
  sliced.spec.sharing.time_slicing = api::TimeSlicing{};
  sliced.spec.sharing.time_slicing->replicas = 4;
  const auto shared = pool_unit_costs(sliced, {{"nvidia.com/gpu.shared", 16 * kMicro}, {"nvidia.com/mig-3g.40gb", kMicro}},
                                      catalog, quota::ChargeBasis::compute);
  EXPECT_EQ(shared.at("nvidia.com/gpu.shared"), 250000);
  EXPECT_EQ(shared.at("nvidia.com/mig-3g.40gb"), 107143);  // 3/7 / 4
}

// By memory, the sizes the GPUs report win over the catalog's nominal ones
// (H200 7g.141gb: 140.00 GiB of 143771 MiB on one driver, other sizes on others).
TEST(PoolUnitCosts, MemoryBasisUsesTheReportedSizes) {
  const auto& catalog = gpu::Catalog::builtin();
  api::GPUPool pool;
  const quota::Amounts capacity = {{"nvidia.com/mig-3g.71gb", 2 * kMicro}, {"nvidia.com/mig-1g.18gb", kMicro}};
  const std::vector<ReportedInstance> reported = {{"3g.71gb", 71424, 143771}, {"3g.71gb", 71168, 143771}};
  const auto costs = pool_unit_costs(pool, capacity, catalog, quota::ChargeBasis::memory, reported);
  EXPECT_EQ(costs.at("nvidia.com/mig-3g.71gb"), 496790);  // the larger: 71424 / 143771
  // Nothing reported for 1g.18gb: the catalog's nominal share.
  const auto nominal = pool_unit_costs(pool, {{"nvidia.com/mig-1g.18gb", kMicro}}, catalog, quota::ChargeBasis::memory);
  EXPECT_EQ(costs.at("nvidia.com/mig-1g.18gb"), nominal.at("nvidia.com/mig-1g.18gb"));
  // By compute the sizes do not matter.
  EXPECT_EQ(pool_unit_costs(pool, capacity, catalog, quota::ChargeBasis::compute, reported).at("nvidia.com/mig-3g.71gb"),
            428571);
}

}  // namespace
}  // namespace gpupool::quota_controller
