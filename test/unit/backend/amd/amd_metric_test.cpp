// amd-smi metric --json (both forms, three generations of names) -> GpuMetrics.
#include <gtest/gtest.h>

#include "amd_fixtures.h"
#include "gpupool/backend/amd_parse.h"

namespace gpupool::backend {
namespace {

using amd_test::fixture;

struct Expected {
  int index;
  std::optional<double> temperature, power, utilization;
  std::optional<std::int64_t> used_mib, ecc_ce, ecc_ue;
};

struct MetricCase {
  const char* file;
  std::vector<Expected> gpus;
};

class MetricTable : public ::testing::TestWithParam<MetricCase> {};

TEST_P(MetricTable, ReadsEveryGpu) {
  const auto parsed = amdsmi::parse_metric_json(fixture(GetParam().file));
  ASSERT_TRUE(parsed) << parsed.error;
  const auto& want = GetParam().gpus;
  ASSERT_EQ(parsed.value->size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    const GpuMetrics& m = (*parsed.value)[i];
    SCOPED_TRACE("GPU " + std::to_string(want[i].index));
    EXPECT_EQ(m.index, want[i].index);
    EXPECT_EQ(m.temperature_celsius, want[i].temperature);
    EXPECT_EQ(m.power_watts, want[i].power);
    EXPECT_EQ(m.utilization_percent, want[i].utilization);
    EXPECT_EQ(m.memory_used_mib, want[i].used_mib);
    EXPECT_EQ(m.ecc_corrected_total, want[i].ecc_ce);
    EXPECT_EQ(m.ecc_uncorrected_total, want[i].ecc_ue);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, MetricTable,
    ::testing::Values(MetricCase{"amd-smi-metric_2x-mi300x_gpu_data.json",
                                 {{0, 71.0, 612.0, 97.0, 150324, 3, 0}, {1, 39.0, 141.0, 0.0, 283, 0, 1}}},
                      MetricCase{"amd-smi-metric_mi210_array.json", {{0, 44.0, 87.0, 12.0, 10, 0, 0}}},
                      MetricCase{"amd-smi-metric_mi250x_rocm60.json",
                                 {{0, 48.0, 212.0, 45.0, 2048, 12, 0},
                                  {1, std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                                   std::nullopt}}}));

TEST(AmdSmiMetricShared, RealPlainArrayPowerOnlyOutput) {
  const auto sample = amd_test::shared_sample("amd-smi-metric-p-json_plain-array.json");
  if (!sample) GTEST_SKIP() << "../shared/testdata/amd is absent";
  const auto parsed = amdsmi::parse_metric_json(*sample);
  ASSERT_TRUE(parsed) << parsed.error;
  ASSERT_EQ(parsed.value->size(), 1u);
  EXPECT_EQ((*parsed.value)[0].power_watts, 10.0);
  EXPECT_FALSE((*parsed.value)[0].temperature_celsius.has_value());
}

TEST(AmdSmiMetric, GbAndByteUnitsBecomeMib) {
  const auto parsed = amdsmi::parse_metric_json(
      R"([{"gpu": 0, "mem_usage": {"used_vram": {"value": 2, "unit": "GB"}}},
          {"gpu": 1, "mem_usage": {"used_vram": "1048576 B"}}])");
  ASSERT_TRUE(parsed) << parsed.error;
  EXPECT_EQ((*parsed.value)[0].memory_used_mib, 2048);
  EXPECT_EQ((*parsed.value)[1].memory_used_mib, 1);
}

}  // namespace
}  // namespace gpupool::backend
