// amd-smi process --json and rocm-smi --json.
#include <gtest/gtest.h>

#include "amd_fixtures.h"
#include "gpupool/backend/amd_parse.h"

namespace gpupool::backend {
namespace {

using amd_test::fixture;

TEST(AmdSmiProcess, ListsRunningProcessesSortedByGpuAndPid) {
  const auto parsed = amdsmi::parse_process_json(fixture("amd-smi-process_mi300x.json"));
  ASSERT_TRUE(parsed) << parsed.error;
  EXPECT_EQ(*parsed.value, (std::vector<GpuProcess>{{0, -1, 40012, 1024, ""}, {0, -1, 41877, 150000, ""}}));
}

TEST(AmdSmiProcess, OlderMemFieldAndGpuDataWrapper) {
  const auto parsed = amdsmi::parse_process_json(
      R"({"gpu_data": [{"gpu": 1, "process_list": [{"process_info": {"name": "a", "pid": "7", "mem": 2097152}}]},
                       {"gpu": 2, "process_list": "N/A"}]})");
  ASSERT_TRUE(parsed) << parsed.error;
  EXPECT_EQ(*parsed.value, (std::vector<GpuProcess>{{1, -1, 7, 2, ""}}));
}

TEST(RocmSmi, InventoryFromOwnFixture) {
  const auto parsed = amdsmi::parse_rocm_smi_json(fixture("rocm-smi_mi300x_rocm62.json"), gpu::Catalog::builtin());
  ASSERT_TRUE(parsed) << parsed.error;
  const Inventory& inv = *parsed.value;
  EXPECT_EQ(inv.driver_version, "6.8.5");
  ASSERT_EQ(inv.gpus.size(), 2u);
  EXPECT_EQ(inv.gpus[0].index, 0);
  EXPECT_EQ(inv.gpus[1].index, 8);
  EXPECT_EQ(inv.gpus[0].catalog_id, "mi300x-192gb");
  EXPECT_EQ(inv.gpus[0].name, "AMD Instinct MI300X");
  EXPECT_EQ(inv.gpus[0].pci_device_id, 0x74A1u);
  EXPECT_EQ(inv.gpus[0].pci_bus_id, "0000:05:00.0");
  EXPECT_EQ(inv.gpus[0].uuid, "0x5d1a7e3c9b204f11");
  EXPECT_EQ(inv.gpus[0].memory_mib, 196288);
  EXPECT_EQ(inv.gpus[0].compute_partition, "CPX");
  EXPECT_EQ(inv.gpus[0].memory_partition, "NPS4");
  EXPECT_EQ(inv.gpus[1].compute_partition, "SPX");
}

TEST(RocmSmi, MetricsFromOwnFixture) {
  const auto parsed = amdsmi::parse_rocm_smi_metrics_json(fixture("rocm-smi_mi300x_rocm62.json"));
  ASSERT_TRUE(parsed) << parsed.error;
  ASSERT_EQ(parsed.value->size(), 2u);
  const GpuMetrics& m = (*parsed.value)[0];
  EXPECT_EQ(m.temperature_celsius, 43.0);
  EXPECT_EQ(m.power_watts, 139.0);
  EXPECT_EQ(m.utilization_percent, 2.0);
  EXPECT_EQ(m.memory_used_mib, 283);
  EXPECT_FALSE(m.ecc_corrected_total.has_value());
}

struct RocmSharedCase {
  const char* file;
  std::size_t cards;
  std::string name;
  std::uint32_t device_id;
  std::string bdf;
  std::int64_t memory_mib;
  std::string uuid;
  std::string driver;
};

class RocmSmiShared : public ::testing::TestWithParam<RocmSharedCase> {};

TEST_P(RocmSmiShared, RealOutputs) {
  const RocmSharedCase& c = GetParam();
  const auto sample = amd_test::shared_sample(c.file);
  if (!sample) GTEST_SKIP() << "../shared/testdata/amd is absent";
  const auto parsed = amdsmi::parse_rocm_smi_json(*sample, gpu::Catalog::builtin());
  ASSERT_TRUE(parsed) << parsed.error;
  ASSERT_EQ(parsed.value->gpus.size(), c.cards);
  const GpuInfo& g = parsed.value->gpus[0];
  EXPECT_EQ(g.name, c.name);
  EXPECT_EQ(g.pci_device_id, c.device_id);
  EXPECT_EQ(g.pci_bus_id, c.bdf);
  EXPECT_EQ(g.memory_mib, c.memory_mib);
  EXPECT_EQ(g.uuid, c.uuid);
  EXPECT_EQ(parsed.value->driver_version, c.driver);
  const auto metrics = amdsmi::parse_rocm_smi_metrics_json(*sample);
  ASSERT_TRUE(metrics) << metrics.error;
  EXPECT_EQ(metrics.value->size(), c.cards);
}

INSTANTIATE_TEST_SUITE_P(
    Samples, RocmSmiShared,
    ::testing::Values(RocmSharedCase{"rocm-smi-json_mi100_rocm602.json", 4, "Arcturus GL-XL [Instinct MI100]", 0x738C,
                                     "0000:83:00.0", 32752, "0x79ccd55167a2124a", "6.3.6"},
                      RocmSharedCase{"rocm-smi-json_rx6700xt_rocm612.json", 1,
                                     "Navi 22 [Radeon RX 6700/6700 XT / 6800M]", 0x73DF, "0000:07:00.0", 12272, "",
                                     "6.3.6"}));

}  // namespace
}  // namespace gpupool::backend
