// What amd-smi metric --json and rocm-smi --json give beyond the basic
// readings: memory free and total, energy, SM (gfx) and memory clocks, across
// the amd-smi generations and rocm-smi. Table over the project's fixtures.
#include <gtest/gtest.h>

#include <functional>

#include "amd_fixtures.h"
#include "gpupool/backend/amd_parse.h"

namespace gpupool::backend {
namespace {

using amd_test::fixture;

struct Want {
  int index;
  std::optional<std::int64_t> total_mib, used_mib, free_mib, energy_mj, sm_mhz, memory_mhz;
};

struct TelemetryCase {
  const char* name;
  const char* file;
  std::function<amdsmi::Parsed<std::vector<GpuMetrics>>(std::string_view)> parse;
  std::vector<Want> gpus;
};

class AmdTelemetryTable : public ::testing::TestWithParam<TelemetryCase> {};

TEST_P(AmdTelemetryTable, ReadsEveryGpu) {
  const auto parsed = GetParam().parse(fixture(GetParam().file));
  ASSERT_TRUE(parsed) << parsed.error;
  const auto& want = GetParam().gpus;
  ASSERT_EQ(parsed.value->size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const GpuMetrics& m = (*parsed.value)[i];
    SCOPED_TRACE("GPU " + std::to_string(want[i].index));
    EXPECT_EQ(m.index, want[i].index);
    EXPECT_EQ(m.memory_total_mib, want[i].total_mib);
    EXPECT_EQ(m.memory_used_mib, want[i].used_mib);
    EXPECT_EQ(m.memory_free_mib, want[i].free_mib);
    EXPECT_EQ(m.energy_millijoules, want[i].energy_mj);
    EXPECT_EQ(m.sm_clock_mhz, want[i].sm_mhz);
    EXPECT_EQ(m.memory_clock_mhz, want[i].memory_mhz);
    // No AMD tool reports NVML's reason mask, and partitions are GPUs of their own.
    EXPECT_FALSE(m.clock_event_reasons.has_value());
    EXPECT_FALSE(m.clock_event_reasons_mask.has_value());
    EXPECT_TRUE(m.instances.empty());
  }
}

amdsmi::Parsed<std::vector<GpuMetrics>> amd_smi(std::string_view s) { return amdsmi::parse_metric_json(s); }
amdsmi::Parsed<std::vector<GpuMetrics>> rocm_smi(std::string_view s) { return amdsmi::parse_rocm_smi_metrics_json(s); }

INSTANTIATE_TEST_SUITE_P(
    Fixtures, AmdTelemetryTable,
    ::testing::Values(
        // ROCm 6.3: {value, unit} leaves, gfx_0..gfx_7 / mem_0, energy in J; one GPU per CPX partition.
        TelemetryCase{"AmdSmiRocm63Cpx", "amd-smi-metric-telemetry_mi300x-cpx_rocm63.json", amd_smi,
                      {{0, 49136, 20480, 28656, 2403281116, 2100, 1300}, {1, 49136, 283, 48853, 2399876500, 132, 900}}},
        // ROCm 6.0: bare numbers, clock domains "gfx" and "MEM", energy a bare number of joules.
        TelemetryCase{"AmdSmiRocm60", "amd-smi-metric-telemetry_mi210_rocm60.json", amd_smi,
                      {{0, 65520, 10, 65510, 9075215, 1700, 1600}}},
        // Older metric fixtures: whatever they lack stays empty.
        TelemetryCase{"AmdSmiWithoutClocksOrEnergy", "amd-smi-metric_mi250x_rocm60.json", amd_smi,
                      {{0, 65520, 2048, std::nullopt, std::nullopt, std::nullopt, std::nullopt},
                       {1, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt}}},
        // rocm-smi: bytes, "(2100Mhz)", micro-joules; free is total - used.
        TelemetryCase{"RocmSmi", "rocm-smi-telemetry_mi300x_rocm62.json", rocm_smi,
                      {{0, 196288, 20480, 175808, 962825096297, 2100, 1300},
                       {1, 196288, 283, 196005, std::nullopt, 132, 900}}}),
    [](const ::testing::TestParamInfo<TelemetryCase>& p) { return std::string(p.param.name); });

TEST(AmdTelemetry, RealRocmSmiClocksReadAsMhz) {
  const auto sample = amd_test::shared_sample("rocm-smi-json_mi100_rocm602.json");
  if (!sample) GTEST_SKIP() << "../shared/testdata/amd is absent";
  const auto parsed = amdsmi::parse_rocm_smi_metrics_json(*sample);
  ASSERT_TRUE(parsed) << parsed.error;
  ASSERT_FALSE(parsed.value->empty());
  EXPECT_EQ((*parsed.value)[0].sm_clock_mhz, 300);      // "sclk clock speed:": "(300Mhz)"
  EXPECT_EQ((*parsed.value)[0].memory_clock_mhz, 1200);  // "mclk clock speed:": "(1200Mhz)"
  EXPECT_EQ((*parsed.value)[0].memory_total_mib, 34342961152 / 1048576);
}

TEST(AmdTelemetry, EnergyUnits) {
  const auto parsed = amdsmi::parse_metric_json(
      R"([{"gpu": 0, "energy": {"total_energy_consumption": {"value": 1.5, "unit": "J"}}},
          {"gpu": 1, "energy": {"total_energy_consumption": "2500 uJ"}},
          {"gpu": 2, "energy": {"total_energy_consumption": {"value": 7, "unit": "mJ"}}},
          {"gpu": 3, "energy": "N/A"}])");
  ASSERT_TRUE(parsed) << parsed.error;
  EXPECT_EQ((*parsed.value)[0].energy_millijoules, 1500);
  EXPECT_EQ((*parsed.value)[1].energy_millijoules, 3);  // 2.5 mJ, rounded
  EXPECT_EQ((*parsed.value)[2].energy_millijoules, 7);
  EXPECT_FALSE((*parsed.value)[3].energy_millijoules.has_value());
}

}  // namespace
}  // namespace gpupool::backend
