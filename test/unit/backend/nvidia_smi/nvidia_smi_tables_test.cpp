// nvidia-smi -L, --query-gpu csv and the mig -lgi/-lgip/-lgipp/-lci tables
// and -cgi output: every fixture, then malformed input whose error names
// the line.
#include <gtest/gtest.h>

#include "gpupool/backend/nvidia_smi_parse.h"
#include "nvsmi_fixtures.h"

namespace gpupool::backend::nvsmi {
namespace {

using testing::fixture;
using testing::ok_or_fail;

// ---- -L --------------------------------------------------------------------

TEST(List, GpusWithMigDevices) {
  const auto gpus = ok_or_fail(parse_list(fixture("L_2x-a100-sxm4-80gb_mig.txt")));
  const std::vector<ListedGpu> expected{
      {0, "NVIDIA A100-SXM4-80GB", "GPU-5a3c2d1e-0b4f-4e6a-9c1d-7f2e8a9b0c11",
       {{"3g.40gb", 0, "MIG-11111111-2222-5333-8444-555555555501"},
        {"2g.20gb", 1, "MIG-11111111-2222-5333-8444-555555555505"},
        {"1g.10gb", 2, "MIG-11111111-2222-5333-8444-555555555513"}}},
      {1, "NVIDIA A100-SXM4-80GB", "GPU-0d9e8f7a-6b5c-4d3e-2f1a-0b9c8d7e6f55", {}}};
  EXPECT_EQ(gpus, expected);
}

TEST(List, R450MigUuids) {
  const auto gpus = ok_or_fail(parse_list(fixture("L_a100-sxm4-40gb_r450.txt")));
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].name, "A100-SXM4-40GB");
  ASSERT_EQ(gpus[0].mig_devices.size(), 2u);
  EXPECT_EQ(gpus[0].mig_devices[1].uuid, "MIG-GPU-5c89852c-d268-c3f3-1b07-005d5ae1dc3f/2/0");
}

TEST(List, PlainGpusAndOldSerialForm) {
  const auto gpus = ok_or_fail(parse_list(fixture("L_4x-t4.txt")));
  ASSERT_EQ(gpus.size(), 4u);
  EXPECT_EQ(gpus[3].index, 3);
  EXPECT_EQ(gpus[3].uuid, "GPU-7e1f3c2a-55aa-4b3c-8d9e-0a1b2c3d4e62");
  const auto old = ok_or_fail(parse_list("GPU 0: Tesla K80 (S/N: 0324414056639)\r\n\r\n"));
  ASSERT_EQ(old.size(), 1u);
  EXPECT_EQ(old[0].name, "Tesla K80");
  EXPECT_EQ(old[0].uuid, "");
  EXPECT_TRUE(ok_or_fail(parse_list("")).empty());
}

// ---- --query-gpu -----------------------------------------------------------

TEST(QueryGpuCsv, NoHeaderNoUnits) {
  const auto rows = ok_or_fail(parse_query_gpu_csv(fixture("query-gpu_2x-a100_noheader-nounits.csv")));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].index, 0);
  EXPECT_EQ(rows[0].uuid, "GPU-5a3c2d1e-0b4f-4e6a-9c1d-7f2e8a9b0c11");
  EXPECT_EQ(rows[0].name, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(rows[0].pci_bus_id, "00000000:07:00.0");
  EXPECT_EQ(rows[0].memory_total_mib, 81920);
  EXPECT_EQ(rows[0].driver_version, "550.127.08");
  EXPECT_EQ(rows[0].mig_current, MigMode::enabled);
  EXPECT_EQ(rows[0].metrics.temperature_celsius, 38.0);
  EXPECT_EQ(rows[0].metrics.power_watts, 121.40);
  EXPECT_FALSE(rows[0].metrics.utilization_percent.has_value());  // [N/A] on MIG
  EXPECT_EQ(rows[0].metrics.memory_used_mib, 38030);
  EXPECT_EQ(rows[0].metrics.ecc_corrected_total, 0);
  EXPECT_EQ(rows[1].index, 1);
  EXPECT_EQ(rows[1].metrics.index, 1);
  EXPECT_EQ(rows[1].mig_current, MigMode::disabled);
  EXPECT_EQ(rows[1].mig_pending, MigMode::enabled);
  EXPECT_EQ(rows[1].metrics.utilization_percent, 17.0);
  EXPECT_EQ(rows[1].metrics.ecc_corrected_total, 3);
  EXPECT_FALSE(rows[1].metrics.ecc_uncorrected_total.has_value());
}

TEST(QueryGpuCsv, HeaderWithUnits) {
  const auto rows = ok_or_fail(parse_query_gpu_csv(fixture("query-gpu_t4_header-units.csv")));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].name, "Tesla T4");
  EXPECT_EQ(rows[0].memory_total_mib, 15360);
  EXPECT_FALSE(rows[0].mig_current.has_value());
  EXPECT_FALSE(rows[0].mig_pending.has_value());
  EXPECT_EQ(rows[0].metrics.power_watts, 27.38);
  EXPECT_EQ(rows[0].metrics.utilization_percent, 4.0);
  EXPECT_EQ(rows[0].metrics.memory_used_mib, 1033);
}

TEST(QueryGpuCsv, HeaderInAnyOrderWithUnknownAndMissingColumns) {
  const auto rows = ok_or_fail(parse_query_gpu_csv(fixture("query-gpu_rtx-3080_header-reordered.csv")));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].index, 0);
  EXPECT_EQ(rows[0].name, "NVIDIA GeForce RTX 3080");
  EXPECT_EQ(rows[0].metrics.memory_used_mib, 9184);
  EXPECT_FALSE(rows[0].metrics.power_watts.has_value());  // [Not Supported]
  EXPECT_EQ(rows[0].metrics.temperature_celsius, 54.0);
  EXPECT_FALSE(rows[0].memory_total_mib.has_value());
  EXPECT_EQ(rows[0].uuid, "");
}

TEST(QueryGpuCsv, TelemetryColumnsWithoutHeader) {
  const auto rows = ok_or_fail(parse_query_gpu_csv(fixture("query-gpu-telemetry_2x-a100_noheader-nounits.csv")));
  ASSERT_EQ(rows.size(), 2u);
  const GpuMetrics& mig = rows[0].metrics;
  EXPECT_EQ(mig.memory_used_mib, 38030);
  EXPECT_EQ(mig.memory_free_mib, 43020);
  EXPECT_EQ(mig.memory_total_mib, 81920);
  EXPECT_EQ(rows[0].memory_total_mib, 81920);
  EXPECT_EQ(mig.sm_clock_mhz, 1410);
  EXPECT_EQ(mig.memory_clock_mhz, 1593);
  EXPECT_EQ(mig.clock_event_reasons, std::vector<std::string>{});
  EXPECT_EQ(mig.clock_event_reasons_mask, 0u);
  EXPECT_FALSE(mig.energy_millijoules.has_value());  // nvidia-smi has no such field
  const GpuMetrics& plain = rows[1].metrics;
  EXPECT_EQ(plain.sm_clock_mhz, 705);
  EXPECT_EQ(plain.clock_event_reasons_mask, 0x45u);
  EXPECT_EQ(plain.clock_event_reasons,
            (std::vector<std::string>{"gpu_idle", "sw_power_cap", "hw_thermal_slowdown"}));
  EXPECT_EQ(plain.utilization_percent, 17.0);
}

TEST(QueryGpuCsv, TelemetryColumnsUnderTheNamesNvidiaSmiPrints) {
  // clocks.current.sm / clocks.current.memory for clocks.sm / clocks.mem, the
  // pre-R535 clocks_throttle_reasons.active, units, [N/A] and [Not Supported].
  const auto rows = ok_or_fail(parse_query_gpu_csv(fixture("query-gpu-telemetry_2x-l4_r525_header-units.csv")));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].metrics.memory_free_mib, 22478);
  EXPECT_EQ(rows[0].metrics.sm_clock_mhz, 210);
  EXPECT_EQ(rows[0].metrics.memory_clock_mhz, 405);
  EXPECT_EQ(rows[0].metrics.clock_event_reasons, std::vector<std::string>{"gpu_idle"});
  EXPECT_EQ(rows[1].metrics.sm_clock_mhz, 2040);
  EXPECT_FALSE(rows[1].metrics.memory_clock_mhz.has_value());
  EXPECT_FALSE(rows[1].metrics.clock_event_reasons.has_value());
  EXPECT_FALSE(rows[1].metrics.clock_event_reasons_mask.has_value());
  EXPECT_EQ(rows[1].metrics.utilization_percent, 93.0);
}

TEST(QueryGpuCsv, TheOlderFourteenColumnsStillRead) {
  const auto rows = ok_or_fail(parse_query_gpu_csv(fixture("query-gpu_2x-a100_noheader-nounits.csv")));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].metrics.memory_used_mib, 1215);
  EXPECT_FALSE(rows[1].metrics.memory_free_mib.has_value());
  EXPECT_FALSE(rows[1].metrics.sm_clock_mhz.has_value());
  EXPECT_FALSE(rows[1].metrics.clock_event_reasons.has_value());
}

TEST(QueryGpuCsv, EmptyOutputHasNoRows) { EXPECT_TRUE(ok_or_fail(parse_query_gpu_csv("\n")).empty()); }

// ---- mig tables ------------------------------------------------------------

TEST(MigLgi, Rows) {
  const auto rows = ok_or_fail(parse_mig_lgi(fixture("mig-lgi_a100-sxm4-80gb.txt")));
  const std::vector<GpuInstanceRow> expected{
      {0, "1g.10gb", 19, 13, 2, 1}, {0, "2g.20gb", 14, 5, 0, 2}, {0, "3g.40gb", 9, 1, 4, 4}};
  EXPECT_EQ(rows, expected);
}

TEST(MigLgi, NoneFoundIsEmpty) {
  EXPECT_TRUE(ok_or_fail(parse_mig_lgi(fixture("mig-lgi_none.txt"))).empty());
  EXPECT_TRUE(ok_or_fail(parse_mig_lgi("No MIG-enabled devices found.\n")).empty());
  EXPECT_TRUE(ok_or_fail(parse_mig_lgi("")).empty());
}

TEST(MigLci, Rows) {
  const auto rows = ok_or_fail(parse_mig_lci(fixture("mig-lci_a100-sxm4-80gb.txt")));
  const std::vector<ComputeInstanceRow> expected{
      {0, 13, "1g.10gb", 0, 0, 0, 1}, {0, 5, "2g.20gb", 1, 0, 0, 2}, {0, 1, "3g.40gb", 2, 0, 0, 3}};
  EXPECT_EQ(rows, expected);
  EXPECT_TRUE(ok_or_fail(parse_mig_lci("No compute instances found: Not Found\n")).empty());
}

TEST(MigLgip, RowsSkipTheirSecondLine) {
  const auto rows = ok_or_fail(parse_mig_lgip(fixture("mig-lgip_a100-sxm4-80gb.txt")));
  ASSERT_EQ(rows.size(), 7u);
  EXPECT_EQ(rows[0], (GpuInstanceProfileRow{0, "1g.10gb", 19, 6, 7, 9.50}));
  EXPECT_EQ(rows[1].profile, "1g.10gb+me");
  EXPECT_EQ(rows[6], (GpuInstanceProfileRow{0, "7g.80gb", 0, 0, 1, 79.00}));
}

TEST(MigLgip, ProfilesMatchTheCatalog) {
  const gpu::GpuModel* model = gpu::Catalog::builtin().find("a100-sxm4-80gb");
  ASSERT_NE(model, nullptr);
  const auto rows = ok_or_fail(parse_mig_lgip(fixture("mig-lgip_a100-sxm4-80gb.txt")));
  for (const auto& row : rows) {
    const gpu::MigProfile* p = model->mig->profile(row.profile);
    ASSERT_NE(p, nullptr) << row.profile;
    EXPECT_EQ(p->profile_id, row.profile_id) << row.profile;
    EXPECT_EQ(p->max_count, row.total) << row.profile;
  }
}

TEST(MigLgipp, Placements) {
  const auto rows = ok_or_fail(parse_mig_lgipp(fixture("mig-lgipp_a100-sxm4-80gb.txt")));
  ASSERT_EQ(rows.size(), 7u);
  const std::vector<gpu::MigPlacement> p15{{0, 2}, {2, 2}, {4, 2}, {6, 2}};
  EXPECT_EQ(rows[2], (GpuInstancePlacementRow{0, 15, p15}));
  EXPECT_EQ(rows[6], (GpuInstancePlacementRow{0, 0, {{0, 8}}}));  // "Placement : {0}:8"
  // Every row agrees with the catalog.
  const gpu::GpuModel* model = gpu::Catalog::builtin().find("a100-sxm4-80gb");
  ASSERT_NE(model, nullptr);
  for (const auto& row : rows) {
    bool found = false;
    for (const auto& profile : model->mig->profiles) {
      if (profile.profile_id != row.profile_id) continue;
      found = true;
      EXPECT_EQ(profile.placements, row.placements) << profile.name;
    }
    EXPECT_TRUE(found) << row.profile_id;
  }
}

TEST(MigCreate, GpuAndComputeInstanceIds) {
  EXPECT_EQ(ok_or_fail(parse_mig_create(fixture("mig-cgi_a100-sxm4-80gb.txt"))), (CreatedInstance{0, 6, 0}));
  EXPECT_EQ(ok_or_fail(parse_mig_create("Successfully created GPU instance ID  2 on GPU  3 using profile MIG 7g.80gb (ID  0)\n")),
            (CreatedInstance{3, 2, -1}));
  const auto none = parse_mig_create("Unable to create a GPU instance on GPU 0 using profile 9: Insufficient Resources\n");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().where, "line 1");
}

// ---- malformed tables: the error names the line ----------------------------

struct BadTable {
  std::string name;
  std::function<std::optional<ParseError>(std::string_view)> parse;
  std::string text, where, message_part;
};

template <class F>
std::function<std::optional<ParseError>(std::string_view)> error_of(F f) {
  return [f](std::string_view t) -> std::optional<ParseError> {
    auto r = f(t);
    if (r.ok()) return std::nullopt;
    return r.error();
  };
}

class TableErrors : public ::testing::TestWithParam<BadTable> {};

TEST_P(TableErrors, NameTheLine) {
  const BadTable& c = GetParam();
  const auto err = c.parse(c.text);
  ASSERT_TRUE(err.has_value()) << "parsed: " << c.text;
  EXPECT_EQ(err->where, c.where) << err->to_string();
  EXPECT_NE(err->message.find(c.message_part), std::string::npos) << err->to_string();
}

const std::string kLgiHead =
    "+-----+\n| GPU instances: |\n| GPU Name Profile Instance Placement |\n|  ID ID Start:Size |\n|=====|\n";

INSTANTIATE_TEST_SUITE_P(
    Malformed, TableErrors,
    ::testing::Values(
        BadTable{"ListGarbage", error_of(parse_list), "GPU 0: Tesla T4 (UUID: GPU-1)\nhello\n", "line 2", "'hello'"},
        BadTable{"ListBadIndex", error_of(parse_list), "\nGPU x: Tesla T4 (UUID: GPU-1)\n", "line 2", "GPU <index>"},
        BadTable{"ListMigFirst", error_of(parse_list), "  MIG 1g.5gb Device 0: (UUID: MIG-1)\n", "line 1", "before any GPU"},
        BadTable{"ListMigNoUuid", error_of(parse_list), "GPU 0: A (UUID: GPU-1)\n  MIG 1g.5gb Device 0:\n", "line 2", "MIG <profile>"},
        BadTable{"ListMigBadDevice", error_of(parse_list), "GPU 0: A (UUID: GPU-1)\n  MIG 1g.5gb Device x: (UUID: MIG-1)\n",
                 "line 2", "'x:'"},
        BadTable{"CsvColumns", error_of(parse_query_gpu_csv), "0, GPU-1, T4\n", "line 1", "expected 18"},
        BadTable{"CsvColumnsAfterTheFirstLine", error_of(parse_query_gpu_csv),
                 "0, a, b, c, 1, d, [N/A], [N/A], 1, 1, 1, 1, 0, 0\n1, a, b, c, 1, d, [N/A], [N/A], 1, 1, 1, 1, 0, 0, 1, 1, 1, 0x1\n",
                 "line 2", "expected 14"},
        BadTable{"CsvReasonMask", error_of(parse_query_gpu_csv),
                 "0, a, b, c, 1, d, [N/A], [N/A], 1, 1, 1, 1, 0, 0, 1, 1, 1, Active\n", "line 1",
                 "column clocks_event_reasons.active: not a hexadecimal mask: 'Active'"},
        BadTable{"CsvClock", error_of(parse_query_gpu_csv),
                 "0, a, b, c, 1, d, [N/A], [N/A], 1, 1, 1, 1, 0, 0, 1, fast, 1, 0x1\n", "line 1",
                 "column clocks.sm: not a whole number: 'fast'"},
        BadTable{"CsvIndex", error_of(parse_query_gpu_csv),
                 "0, a, b, c, 1, d, [N/A], [N/A], 1, 1, 1, 1, 0, 0\nx, a, b, c, 1, d, [N/A], [N/A], 1, 1, 1, 1, 0, 0\n",
                 "line 2", "column index"},
        BadTable{"CsvNumber", error_of(parse_query_gpu_csv), "0, a, b, c, 1, d, [N/A], [N/A], hot, 1, 1, 1, 0, 0\n",
                 "line 1", "column temperature.gpu: not a number: 'hot'"},
        BadTable{"CsvMig", error_of(parse_query_gpu_csv), "0, a, b, c, 1, d, On, [N/A], 1, 1, 1, 1, 0, 0\n", "line 1",
                 "column mig.mode.current"},
        BadTable{"CsvHeaderWithoutIndex", error_of(parse_query_gpu_csv), "name, uuid\nT4, GPU-1\n", "line 1", "no index"},
        BadTable{"CsvQueryError", error_of(parse_query_gpu_csv), "Field \"pci.bus\" is not a valid field to query.\n",
                 "line 1", "expected 18"},
        BadTable{"LgiNotATable", error_of(parse_mig_lgi), "Failed to initialize NVML: Driver/library version mismatch\n",
                 "line 1", "not part of a table"},
        BadTable{"LgiNoBody", error_of(parse_mig_lgi), "+----+\n| GPU instances: |\n", "line 1", "'|===|'"},
        BadTable{"LgiShortRow", error_of(parse_mig_lgi), kLgiHead + "|   0  MIG 1g.10gb  19  13 |\n", "line 6", "'|   0"},
        BadTable{"LgiBadPlacement", error_of(parse_mig_lgi), kLgiHead + "+---+\n|   0  MIG 1g.10gb  19  13  2-1 |\n",
                 "line 7", "<start>:<size>"},
        BadTable{"LgiStrayLine", error_of(parse_mig_lgi), kLgiHead + "|   0  MIG 1g.10gb  19  13  2:1 |\ntrailing\n",
                 "line 7", "'trailing'"},
        BadTable{"LciBadRow", error_of(parse_mig_lci), "|====|\n|  0  x  MIG 1g.10gb  0  0  0:1 |\n", "line 2",
                 "<GPU instance id>"},
        BadTable{"LgipBadCounts", error_of(parse_mig_lgip), "|====|\n|  0  MIG 1g.10gb  19  many  9.50  No |\n", "line 2",
                 "<free>/<total>"},
        BadTable{"LgipBadSecondLine", error_of(parse_mig_lgip), "|====|\n|  0  MIG 1g.10gb  19  7/7  9.50  No |\n| 1 x 0 |\n",
                 "line 3", "'| 1 x 0 |'"},
        BadTable{"LgippNoBraces", error_of(parse_mig_lgipp), "GPU  0 Profile ID 19 Placements: {0,1}:1\nGPU  0 Profile ID 9\n",
                 "line 2", "Placements:"},
        BadTable{"LgippBadStart", error_of(parse_mig_lgipp), "GPU  0 Profile ID 19 Placements: {0,a}:1\n", "line 1", "'a'"},
        BadTable{"LgippBadSize", error_of(parse_mig_lgipp), "GPU  0 Profile ID 19 Placements: {0,1}:0\n", "line 1",
                 "Placements:"}),
    [](const auto& p) { return p.param.name; });

TEST(Limits, OversizedInputIsAnError) {
  const std::string big(kMaxInputBytes + 1, ' ');
  for (const auto& err : {error_of(parse_list)(big), error_of(parse_query_gpu_csv)(big), error_of(parse_mig_lgi)(big),
                          error_of(parse_mig_lgipp)(big), error_of(parse_topo_matrix)(big)}) {
    ASSERT_TRUE(err.has_value());
    EXPECT_EQ(err->where, "input");
  }
}

}  // namespace
}  // namespace gpupool::backend::nvsmi
