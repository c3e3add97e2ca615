// merge_mig_tables: -q -x + mig -lgi + mig -lci + -L -> complete instances;
// merge_mig_device_memory: --query-gpu metrics + -q -x -> MIG instance memory.
#include <gtest/gtest.h>

#include "gpupool/backend/nvidia_smi_parse.h"
#include "nvsmi_fixtures.h"

namespace gpupool::backend::nvsmi {
namespace {

using testing::fixture;
using testing::ok_or_fail;

TEST(MergeMigTables, FixturesOfOneBox) {
  const gpu::Catalog& catalog = gpu::Catalog::builtin();
  QueryXml xml = ok_or_fail(parse_query_xml(fixture("q-x_2x-a100-sxm4-80gb_mig_v12.xml"), catalog));
  const auto gis = ok_or_fail(parse_mig_lgi(fixture("mig-lgi_a100-sxm4-80gb.txt")));
  const auto cis = ok_or_fail(parse_mig_lci(fixture("mig-lci_a100-sxm4-80gb.txt")));
  const auto listed = ok_or_fail(parse_list(fixture("L_2x-a100-sxm4-80gb_mig.txt")));
  merge_mig_tables(xml.inventory, gis, cis, xml.mig_devices, listed, catalog);
  ASSERT_EQ(xml.inventory.gpus.size(), 2u);
  const std::vector<MigInstance> expected{
      // memory: each MIG device's <fb_memory_usage><total>, as the driver reports it
      {"2g.20gb", 14, 0, 2, 5, 0, "MIG-11111111-2222-5333-8444-555555555505", 19968},
      {"1g.10gb", 19, 2, 1, 13, 0, "MIG-11111111-2222-5333-8444-555555555513", 9728},
      {"3g.40gb", 9, 4, 4, 1, 0, "MIG-11111111-2222-5333-8444-555555555501", 40192}};
  EXPECT_EQ(xml.inventory.gpus[0].instances, expected);
  EXPECT_TRUE(xml.inventory.gpus[1].instances.empty());
}

TEST(MergeMigTables, GpuInstanceWithoutComputeInstance) {
  Inventory inv;
  GpuInfo g;
  g.index = 0;
  g.catalog_id = "a30-24gb";
  inv.gpus.push_back(g);
  // The -lgi name is replaced by the catalog's name for that profile id.
  merge_mig_tables(inv, {{0, "MIG-1g.6gb", 14, 3, 1, 1}}, {}, {}, {}, gpu::Catalog::builtin());
  ASSERT_EQ(inv.gpus[0].instances.size(), 1u);
  EXPECT_EQ(inv.gpus[0].instances[0], (MigInstance{"1g.6gb", 14, 1, 1, 3, -1, "", 0}));
}

TEST(MergeMigTables, UnknownModelKeepsTheLgiName) {
  Inventory inv;
  inv.gpus.push_back(GpuInfo{});
  merge_mig_tables(inv, {{0, "1g.12gb", 44, 7, 3, 1}, {1, "1g.12gb", 44, 8, 0, 1}}, {{0, 7, "1g.12gb", 0, 2, 0, 1}},
                   {}, {}, gpu::Catalog::builtin());
  ASSERT_EQ(inv.gpus[0].instances.size(), 1u);
  EXPECT_EQ(inv.gpus[0].instances[0], (MigInstance{"1g.12gb", 44, 3, 1, 7, 2, "", 0}));
}

TEST(MergeMigDeviceMemory, OneInstancePerGpuInstanceFromItsLowestComputeInstance) {
  std::vector<GpuMetrics> metrics(3);
  metrics[0].index = 0;
  metrics[1].index = 1;
  metrics[2].index = 2;
  const std::vector<XmlMigDevice> devices{
      {0, 2, 5, 1, 19968, 300, 19600},  // GI 5's second compute instance: same memory, read from CI 0 below
      {0, 0, 1, 0, 40192, 38012, 2180},
      {0, 1, 5, 0, 19968, 12, 19955},
      {1, 0, 3, 0, 0, std::nullopt, std::nullopt},  // a log without the numbers
      {2, 0, -1, -1, 9728, 6, 9721}};               // no GPU instance id: not an instance
  merge_mig_device_memory(metrics, devices);
  ASSERT_EQ(metrics[0].instances.size(), 2u);
  EXPECT_EQ(metrics[0].instances[0].gpu_instance_id, 1);
  EXPECT_EQ(metrics[0].instances[0].memory_total_mib, 40192);
  EXPECT_EQ(metrics[0].instances[0].memory_used_mib, 38012);
  EXPECT_EQ(metrics[0].instances[0].memory_free_mib, 2180);
  EXPECT_EQ(metrics[0].instances[1].gpu_instance_id, 5);
  EXPECT_EQ(metrics[0].instances[1].memory_used_mib, 12);
  EXPECT_FALSE(metrics[0].instances[1].utilization_percent.has_value());
  ASSERT_EQ(metrics[1].instances.size(), 1u);
  EXPECT_FALSE(metrics[1].instances[0].memory_total_mib.has_value());  // 0 in the log: unknown
  EXPECT_FALSE(metrics[1].instances[0].memory_used_mib.has_value());
  EXPECT_TRUE(metrics[2].instances.empty());
}

TEST(MergeMigDeviceMemory, FromTheFixturesOfOneBox) {
  const QueryXml xml = ok_or_fail(parse_query_xml(fixture("q-x_2x-a100-sxm4-80gb_mig_v12.xml"), gpu::Catalog::builtin()));
  const auto rows = ok_or_fail(parse_query_gpu_csv(fixture("query-gpu-telemetry_2x-a100_noheader-nounits.csv")));
  std::vector<GpuMetrics> metrics{rows[0].metrics, rows[1].metrics};
  merge_mig_device_memory(metrics, xml.mig_devices);
  ASSERT_EQ(metrics[0].instances.size(), 3u);
  EXPECT_EQ(metrics[0].instances[2].gpu_instance_id, 13);
  EXPECT_EQ(metrics[0].instances[2].memory_free_mib, 9721);
  EXPECT_TRUE(metrics[1].instances.empty());  // MIG pending only
}

}  // namespace
}  // namespace gpupool::backend::nvsmi
