// amd-smi static / list --json -> Inventory.
#include <gtest/gtest.h>

#include "amd_fixtures.h"
#include "gpupool/backend/amd_parse.h"

namespace gpupool::backend {
namespace {

using amd_test::fixture;
using amd_test::shared_sample;

struct StaticCase {
  const char* file;
  std::size_t gpus;
  std::string name;
  std::string catalog_id;
  std::uint32_t device_id;
  std::int64_t memory_mib;
  std::string bdf_of_last;
  std::string uuid_of_first;
  std::string compute, memory;
  std::string driver;
};

class StaticTable : public ::testing::TestWithParam<StaticCase> {};

TEST_P(StaticTable, ReadsEveryGpu) {
  const StaticCase& c = GetParam();
  const auto parsed = amdsmi::parse_static_json(fixture(c.file), gpu::Catalog::builtin());
  ASSERT_TRUE(parsed) << parsed.error;
  const Inventory& inv = *parsed.value;
  ASSERT_EQ(inv.gpus.size(), c.gpus);
  EXPECT_EQ(inv.driver_version, c.driver);
  EXPECT_EQ(inv.cuda_version, "");
  for (std::size_t i = 0; i < inv.gpus.size(); ++i) {
    const GpuInfo& g = inv.gpus[i];
    EXPECT_EQ(g.index, static_cast<int>(i));
    EXPECT_EQ(g.vendor, gpu::Vendor::amd);
    EXPECT_EQ(g.name, c.name);
    EXPECT_EQ(g.catalog_id, c.catalog_id);
    EXPECT_EQ(g.pci_device_id, c.device_id);
    EXPECT_EQ(g.memory_mib, c.memory_mib);
    EXPECT_EQ(g.compute_partition, c.compute);
    EXPECT_EQ(g.memory_partition, c.memory);
    EXPECT_FALSE(g.mig_capable);
  }
  EXPECT_EQ(inv.gpus.back().pci_bus_id, c.bdf_of_last);
  EXPECT_EQ(inv.gpus.front().uuid, c.uuid_of_first);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, StaticTable,
    ::testing::Values(
        StaticCase{"amd-smi-static_mi300x-cpx-nps4.json", 8, "AMD Instinct MI300X", "mi300x-192gb", 0x74A1, 24560,
                   "0000:05:00.7", "0x5D1A7E3C9B204F11", "CPX", "NPS4", "6.10.5"},
        StaticCase{"amd-smi-static_2x-mi210_rocm61-array.json", 2, "AMD Instinct MI210", "mi210-64gb", 0x740F, 65520,
                   "0000:a3:00.0", "0x3E1F00A2B4C6D800", "", "", "6.7.0"},
        StaticCase{"amd-smi-static_mi250x_rocm60-strings.json", 2, "AMD Instinct MI250X", "mi250x-128gb", 0x740C,
                   65520, "0000:c6:00.0", "", "", "", "6.2.4"}));

TEST(AmdSmiList, MergesUuidsIntoTheInventory) {
  auto inv = amdsmi::parse_static_json(fixture("amd-smi-static_mi300x-cpx-nps4.json"), gpu::Catalog::builtin());
  const auto list = amdsmi::parse_list_json(fixture("amd-smi-list_mi300x-cpx-nps4.json"));
  ASSERT_TRUE(inv) << inv.error;
  ASSERT_TRUE(list) << list.error;
  ASSERT_EQ(list.value->size(), 8u);
  EXPECT_EQ((*list.value)[3], (amdsmi::ListEntry{3, "13ff74a1-0000-1000-8042-9b1c5d7e3a03", "0000:05:00.3"}));
  amdsmi::merge_list(*inv.value, *list.value);
  EXPECT_EQ(inv.value->gpus[0].uuid, "10ff74a1-0000-1000-8042-9b1c5d7e3a00");
  EXPECT_EQ(inv.value->gpus[7].uuid, "17ff74a1-0000-1000-8042-9b1c5d7e3a07");
}

TEST(AmdSmiStatic, UnknownModelKeepsTheReportedNameWithoutCatalogId) {
  const auto parsed = amdsmi::parse_static_json(
      R"([{"gpu": 0, "asic": {"market_name": "AMD Radeon RX 7900 XTX", "device_id": "0x744c"}}])",
      gpu::Catalog::builtin());
  ASSERT_TRUE(parsed) << parsed.error;
  EXPECT_EQ(parsed.value->gpus[0].name, "AMD Radeon RX 7900 XTX");
  EXPECT_EQ(parsed.value->gpus[0].catalog_id, "");
  EXPECT_EQ(parsed.value->gpus[0].pci_device_id, 0x744Cu);
}

TEST(AmdSmiStatic, FindsTheModelByDeviceIdWhenTheNameIsMissing) {
  const auto parsed = amdsmi::parse_static_json(R"({"gpu_data": [{"gpu": 2, "asic": {"market_name": "N/A",
      "device_id": "0x74A1"}}]})", gpu::Catalog::builtin());
  ASSERT_TRUE(parsed) << parsed.error;
  EXPECT_EQ(parsed.value->gpus[0].index, 2);
  EXPECT_EQ(parsed.value->gpus[0].catalog_id, "mi300x-192gb");
  EXPECT_EQ(parsed.value->gpus[0].name, "AMD Instinct MI300X");
}

TEST(AmdSmiStatic, EmptyListIsNoGpus) {
  for (const char* json : {"[]", R"({"gpu_data": []})"}) {
    const auto parsed = amdsmi::parse_static_json(json, gpu::Catalog::builtin());
    ASSERT_TRUE(parsed) << parsed.error;
    EXPECT_TRUE(parsed.value->gpus.empty());
  }
}

TEST(AmdSmiStaticShared, RealMi210Output) {
  const auto sample = shared_sample("amd-smi-static-json_mi210.json");
  if (!sample) GTEST_SKIP() << "../shared/testdata/amd is absent";
  const auto parsed = amdsmi::parse_static_json(*sample, gpu::Catalog::builtin());
  ASSERT_TRUE(parsed) << parsed.error;
  ASSERT_EQ(parsed.value->gpus.size(), 1u);
  const GpuInfo& g = parsed.value->gpus[0];
  EXPECT_EQ(g.name, "AMD Instinct MI210");
  EXPECT_EQ(g.catalog_id, "mi210-64gb");
  EXPECT_EQ(g.pci_device_id, 0x740Fu);
  EXPECT_EQ(g.memory_mib, 65520);
  EXPECT_EQ(g.uuid, "");  // product_serial "0" is no identity
  EXPECT_EQ(parsed.value->driver_version.substr(0, 12), "Linuxversion");
}

}  // namespace
}  // namespace gpupool::backend
