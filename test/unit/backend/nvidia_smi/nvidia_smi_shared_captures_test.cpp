// The parsers on real nvidia-smi captures (../shared/testdata/nvidia-smi),
// when that folder is there; each test skips with a message otherwise.
#include <gtest/gtest.h>

#include "gpupool/backend/nvidia_smi_parse.h"
#include "nvsmi_fixtures.h"

namespace gpupool::backend::nvsmi {
namespace {

using testing::ok_or_fail;

#define SHARED_OR_SKIP(var, name)                                                          \
  const std::string var##_path = testing::shared_path(name);                               \
  if (var##_path.empty()) GTEST_SKIP() << "no shared test data: ../shared/testdata/nvidia-smi/" name; \
  const std::string var = testing::read_file(var##_path)

TEST(SharedCaptures, A100MigXml) {
  SHARED_OR_SKIP(xml, "q-x_a100-sxm4-80gb_mig-4x1g.20gb.xml");
  const QueryXml parsed = ok_or_fail(parse_query_xml(xml, gpu::Catalog::builtin()));
  ASSERT_EQ(parsed.inventory.gpus.size(), 1u);
  const GpuInfo& g = parsed.inventory.gpus[0];
  EXPECT_EQ(g.catalog_id, "a100-sxm4-80gb");
  EXPECT_EQ(g.pci_device_id, 0x20B2u);
  EXPECT_EQ(g.memory_mib, 81920);
  EXPECT_EQ(g.mig, (MigModeState{MigMode::enabled, MigMode::enabled}));
  ASSERT_EQ(g.instances.size(), 4u);
  EXPECT_EQ(g.instances[0].gpu_instance_id, 3);
  EXPECT_EQ(parsed.mig_devices[0].memory_mib, 19968);
  EXPECT_EQ(parsed.inventory.driver_version, "535.54.03");
}

TEST(SharedCaptures, OtherXmlLogs) {
  struct Case { const char* name; std::size_t gpus; std::size_t processes; };
  for (const Case c : {Case{"q-x_tesla-t4.xml", 1, 2}, Case{"q-x_rtx-3080_dtd-v13.xml", 1, 0},
                       Case{"q-x_2x-rtx-a5000_dtd-v13.xml", 2, 1}}) {
    const std::string path = testing::shared_path(c.name);
    if (path.empty()) GTEST_SKIP() << "no shared test data: ../shared/testdata/nvidia-smi/" << c.name;
    const QueryXml parsed = ok_or_fail(parse_query_xml(testing::read_file(path), gpu::Catalog::builtin()));
    EXPECT_EQ(parsed.inventory.gpus.size(), c.gpus) << c.name;
    EXPECT_GE(parsed.processes.size(), c.processes) << c.name;
    for (const auto& g : parsed.inventory.gpus) {
      EXPECT_FALSE(g.uuid.empty()) << c.name;
      EXPECT_GT(g.memory_mib, 0) << c.name;
    }
  }
}

TEST(SharedCaptures, MigTables) {
  SHARED_OR_SKIP(lgi, "mig-lgi_a100-sxm4-40gb.txt");
  const std::vector<GpuInstanceRow> expected{{0, "3g.20gb", 9, 1, 4, 4}, {0, "3g.20gb", 9, 2, 0, 4}};
  EXPECT_EQ(ok_or_fail(parse_mig_lgi(lgi)), expected);
  SHARED_OR_SKIP(lgi30, "mig-lgi_a30-24gb.txt");
  EXPECT_EQ(ok_or_fail(parse_mig_lgi(lgi30)).size(), 4u);
  SHARED_OR_SKIP(lgip, "mig-lgip_a100-sxm4-40gb.txt");
  const auto profiles = ok_or_fail(parse_mig_lgip(lgip));
  ASSERT_EQ(profiles.size(), 7u);
  EXPECT_EQ(profiles[1], (GpuInstanceProfileRow{0, "1g.5gb+me", 20, 1, 1, 4.75}));
  SHARED_OR_SKIP(lgipp, "mig-lgipp_a30-24gb.txt");
  const auto placements = ok_or_fail(parse_mig_lgipp(lgipp));
  const gpu::GpuModel* a30 = gpu::Catalog::builtin().find("a30-24gb");
  ASSERT_NE(a30, nullptr);
  ASSERT_EQ(placements.size(), 4u);
  for (const auto& row : placements) {
    for (const auto& p : a30->mig->profiles) {
      if (p.profile_id == row.profile_id) {
        EXPECT_EQ(p.placements, row.placements) << p.name;
      }
    }
  }
}

TEST(SharedCaptures, ListAndCsv) {
  SHARED_OR_SKIP(list, "L_h100-80gb-hbm3_mig.txt");
  const auto gpus = ok_or_fail(parse_list(list));
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].name, "NVIDIA H100 80GB HBM3");
  ASSERT_EQ(gpus[0].mig_devices.size(), 4u);
  EXPECT_EQ(gpus[0].mig_devices[3].profile, "1g.10gb");
  SHARED_OR_SKIP(csv, "query-gpu_h100-80gb-hbm3_mig.csv");
  const auto rows = ok_or_fail(parse_query_gpu_csv(csv));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(rows[0].memory_total_mib, 81559);
  EXPECT_EQ(rows[0].mig_current, MigMode::enabled);
  EXPECT_EQ(rows[0].metrics.power_watts, 71.15);
  EXPECT_EQ(rows[0].metrics.temperature_celsius, 42.0);
  EXPECT_FALSE(rows[0].metrics.utilization_percent.has_value());
  // The telemetry columns under the names a driver 590 header gives them.
  EXPECT_EQ(rows[0].metrics.memory_free_mib, 81022);
  EXPECT_EQ(rows[0].metrics.sm_clock_mhz, 345);
  EXPECT_EQ(rows[0].metrics.memory_clock_mhz, 2619);
  EXPECT_EQ(rows[0].metrics.clock_event_reasons_mask, 0x1u);
  EXPECT_EQ(rows[0].metrics.clock_event_reasons, std::vector<std::string>{"gpu_idle"});
}

}  // namespace
}  // namespace gpupool::backend::nvsmi
