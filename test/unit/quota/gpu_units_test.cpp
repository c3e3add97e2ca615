// What each device costs in gpupool.io/gpu, for every MIG profile the catalog knows.
#include <gtest/gtest.h>

#include "gpupool/gpu/catalog.h"
#include "gpupool/gpu/mig_planner.h"
#include "gpupool/quota/gpu_units.h"

namespace gpupool::quota {
namespace {

const gpu::GpuModel& model(const char* id) { return *gpu::Catalog::builtin().find(id); }

TEST(GpuUnits, WorkedExamples) {
  const auto& a100 = model("a100-sxm4-80gb");
  const auto share = profile_share(a100, *a100.mig->profile("3g.40gb"));
  EXPECT_EQ(device_cost(share, ChargeBasis::compute), 428571);  // 3/7
  EXPECT_EQ(device_cost(share, ChargeBasis::memory), 490625);   // 40192 / 81920 MiB, as reported
  EXPECT_EQ(device_cost(profile_share(a100, *a100.mig->profile("1g.10gb")), ChargeBasis::compute), 142857);
  EXPECT_EQ(device_cost(profile_share(a100, *a100.mig->profile("7g.80gb")), ChargeBasis::compute), kMicro);

  DeviceShare whole;  // a GPU without MIG
  EXPECT_EQ(device_cost(whole, ChargeBasis::compute), kMicro);
  EXPECT_EQ(device_cost(whole, ChargeBasis::memory), kMicro) << "memory unknown: compute counts";
  whole.replicas = 4;  // time-sliced in four
  EXPECT_EQ(device_cost(whole, ChargeBasis::compute), 250000);
  DeviceShare sliced = profile_share(a100, *a100.mig->profile("1g.10gb"));
  sliced.replicas = 2;
  EXPECT_EQ(device_cost(sliced, ChargeBasis::compute), 71429);  // 1/14, to the nearest millionth
  DeviceShare cpx;  // MI300X in CPX: 8 logical GPUs
  cpx.gpu_compute_slices = 8;
  EXPECT_EQ(device_cost(cpx, ChargeBasis::compute), 125000);
}

// Every MIG profile of every model: compute cost is slices/slices of the GPU
// to the nearest millionth; memory cost is within (0, 1]; the instances of any
// layout the planner allows cost at most one GPU (plus rounding).
TEST(GpuUnits, EveryCatalogProfile) {
  int profiles = 0;
  for (const auto& m : gpu::Catalog::builtin().models()) {
    if (!m.mig) continue;
    for (const auto& p : m.mig->profiles) {
      SCOPED_TRACE(m.id + " " + p.name);
      const DeviceShare s = profile_share(m, p);
      const std::int64_t compute = device_cost(s, ChargeBasis::compute);
      const double exact = static_cast<double>(p.compute_slices) * kMicro / m.mig->compute_slices;
      EXPECT_LE(std::abs(static_cast<double>(compute) - exact), 0.5);
      const std::int64_t memory = device_cost(s, ChargeBasis::memory);
      EXPECT_GT(memory, 0);
      EXPECT_LE(memory, kMicro);
      ++profiles;
    }
    for (const auto& layout : gpu::enumerate_maximal_layouts(m)) {
      std::int64_t compute = 0, memory = 0;
      for (const auto& inst : layout.placement) {
        const DeviceShare s = profile_share(m, *m.mig->profile(inst.profile));
        compute += device_cost(s, ChargeBasis::compute);
        memory += device_cost(s, ChargeBasis::memory);
      }
      const auto slack = static_cast<std::int64_t>(layout.placement.size());
      EXPECT_LE(compute, kMicro + slack) << m.id;
      EXPECT_LE(memory, kMicro + slack) << m.id;
    }
  }
  EXPECT_GE(profiles, 100) << "the catalog's MIG profiles were not all seen";
}

TEST(GpuUnits, CostTableAndCharges) {
  const auto& a100 = model("a100-sxm4-80gb");
  const auto& h100 = model("h100-sxm5-80gb");
  DeviceShare whole;
  const Amounts costs = cost_table({{"nvidia.com/mig-1g.10gb", profile_share(a100, *a100.mig->profile("1g.10gb"))},
                                    {"nvidia.com/mig-1g.10gb", profile_share(h100, *h100.mig->profile("1g.10gb"))},
                                    {"nvidia.com/gpu", whole}},
                                   ChargeBasis::memory);
  // Two models advertise the name: the larger share counts.
  const std::int64_t a = device_cost(profile_share(a100, *a100.mig->profile("1g.10gb")), ChargeBasis::memory);
  const std::int64_t h = device_cost(profile_share(h100, *h100.mig->profile("1g.10gb")), ChargeBasis::memory);
  EXPECT_EQ(costs.at("nvidia.com/mig-1g.10gb"), std::max(a, h));
  EXPECT_EQ(costs.at("nvidia.com/gpu"), kMicro);
  // 2 GPUs and 3 slices; an unknown resource adds nothing.
  EXPECT_EQ(gpu_units_of({{"nvidia.com/gpu", 2 * kMicro}, {"nvidia.com/mig-1g.10gb", 3 * kMicro}, {"cpu", 4 * kMicro}}, costs),
            2 * kMicro + 3 * std::max(a, h));
  // A million devices do not overflow.
  EXPECT_EQ(gpu_units_of({{"nvidia.com/gpu", kMicro * kMicro}}, costs), kMicro * kMicro);
}

TEST(Amounts, FormatAndArithmetic) {
  EXPECT_EQ(format_amount(6 * kMicro), "6");
  EXPECT_EQ(format_amount(2500000), "2.5");
  EXPECT_EQ(format_amount(428571), "0.428571");
  EXPECT_EQ(format_amount(-1500000), "-1.5");
  EXPECT_EQ(grain("nvidia.com/gpu"), kMicro);
  EXPECT_EQ(grain(kGpuUnit), 1000);
  EXPECT_EQ(add({{"a", 1}, {"b", 2}}, {{"b", -2}, {"c", 3}}), (Amounts{{"a", 1}, {"c", 3}}));
  EXPECT_EQ(above({{"a", 3}, {"b", 2}, {"c", 1}, {"d", 4}}, {{"a", 1}, {"b", 2}, {"c", 5}, {"e", 9}}),
            (Amounts{{"a", 2}, {"d", 4}}))
      << "used above granted; a resource granted only, or within its grant, is not borrowed";
  EXPECT_TRUE(fits_within({{"a", 1}}, {{"a", 1}, {"b", 0}}));
  EXPECT_FALSE(fits_within({{"a", 1}, {"b", 1}}, {{"a", 1}}));
}

}  // namespace
}  // namespace gpupool::quota
