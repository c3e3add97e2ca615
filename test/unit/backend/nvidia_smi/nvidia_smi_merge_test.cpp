// merge_mig_tables: -q -x + mig -lgi + mig -lci + -L -> complete instances.
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

}  // namespace
}  // namespace gpupool::backend::nvsmi
