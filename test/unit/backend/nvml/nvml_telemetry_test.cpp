// Metrics and processes through the NVML backend.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fake_nvml_fixture.h"

namespace gpupool::backend::nvml_test {
namespace {

TEST_F(NvmlBackendTest, MetricsOfEveryGpu) {
  auto backend = make();
  ASSERT_EQ(fake.set_metrics(1, 55, 250500, 87, 3, 1), 0);
  ASSERT_EQ(fake.add_process(1, 100, 2ULL << 30, -1), 0);
  const auto metrics = backend->metrics();
  ASSERT_EQ(metrics.size(), 3U);
  EXPECT_EQ(metrics[0].index, 0);
  EXPECT_EQ(metrics[0].temperature_celsius, 30.0);
  EXPECT_EQ(metrics[0].memory_used_mib, 0);
  const GpuMetrics& m = metrics[1];
  EXPECT_EQ(m.index, 1);
  EXPECT_EQ(m.temperature_celsius, 55.0);
  EXPECT_EQ(m.power_watts, 250.5);
  EXPECT_EQ(m.utilization_percent, 87.0);
  EXPECT_EQ(m.memory_used_mib, 2048);
  EXPECT_EQ(m.ecc_corrected_total, 3);
  EXPECT_EQ(m.ecc_uncorrected_total, 1);
}

TEST_F(NvmlBackendTest, MemoryEnergyClocksAndClockEventReasons) {
  auto backend = make();
  ASSERT_EQ(fake.set_telemetry(1, 123456789, 1755, 2619, 0x44 /* sw power cap, hw thermal slowdown */), 0);
  ASSERT_EQ(fake.add_process(1, 100, 2ULL << 30, -1), 0);
  const auto metrics = backend->metrics();
  ASSERT_EQ(metrics.size(), 3U);
  const GpuMetrics& m = metrics[1];
  EXPECT_EQ(m.memory_total_mib, 81920);
  EXPECT_EQ(m.memory_used_mib, 2048);
  EXPECT_EQ(m.memory_free_mib, 81920 - 2048);
  EXPECT_EQ(m.energy_millijoules, 123456789);
  EXPECT_EQ(m.sm_clock_mhz, 1755);
  EXPECT_EQ(m.memory_clock_mhz, 2619);
  EXPECT_EQ(m.clock_event_reasons_mask, 0x44U);
  EXPECT_EQ(m.clock_event_reasons, (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
  EXPECT_TRUE(m.instances.empty());
  // The fake's defaults on the others: an idle GPU.
  EXPECT_EQ(metrics[0].clock_event_reasons, std::vector<std::string>{"gpu_idle"});
  EXPECT_EQ(metrics[0].sm_clock_mhz, 1410);
  EXPECT_EQ(metrics[0].energy_millijoules, 0);
  // The R535 name is preferred where the library has it.
  EXPECT_EQ(fake.call_count("nvmlDeviceGetCurrentClocksEventReasons"), 3);
  EXPECT_EQ(fake.call_count("nvmlDeviceGetCurrentClocksThrottleReasons"), 0);
}

// An idle H200 on R580 (read on a real one): v1 said 615 MiB used, v2 and
// nvidia-smi 0 used and 616 MiB reserved. The backend reports what
// nvidia-smi and dcgm-exporter's FB_USED do.
TEST_F(NvmlBackendTest, MemoryTheDriverReservesIsNotUsedMemory) {
  auto backend = make();
  ASSERT_EQ(fake.set_reserved_memory(2, 616ULL << 20), 0);
  ASSERT_EQ(fake.add_process(2, 100, 1ULL << 30, -1), 0);
  const int v1_before = fake.call_count("nvmlDeviceGetMemoryInfo");
  const GpuMetrics m = backend->metrics()[2];
  ASSERT_TRUE(m.memory_total_mib.has_value());
  EXPECT_EQ(m.memory_used_mib, 1024);
  EXPECT_EQ(m.memory_free_mib, *m.memory_total_mib - 616 - 1024);
  EXPECT_EQ(fake.call_count("nvmlDeviceGetMemoryInfo_v2"), 3);
  EXPECT_EQ(fake.call_count("nvmlDeviceGetMemoryInfo"), v1_before) << "v1 only where v2 is missing";
}

TEST(NvmlLegacyTelemetry, WithoutMemoryInfoV2TheReserveCountsAsUsed) {
  const FakeNvml& legacy = fake_nvml_legacy();
  ASSERT_EQ(legacy.reset(kThreeGpus), 0);
  ASSERT_EQ(legacy.set_reserved_memory(2, 616ULL << 20), 0);
  NvmlOptions options;
  options.library_path = legacy.path;
  auto backend = make_nvml_backend(options);
  const GpuMetrics m = backend->metrics()[2];
  EXPECT_EQ(m.memory_used_mib, 616) << "all an R450-era library can say";
  EXPECT_EQ(m.memory_free_mib, *m.memory_total_mib - 616);
}

TEST_F(NvmlBackendTest, ReasonBitsNvmlHasNotNamedStayInTheMaskOnly) {
  auto backend = make();
  ASSERT_EQ(fake.set_telemetry(0, 0, 1410, 1593, 0x10000 | 0x100 | 0x1), 0);
  const GpuMetrics m = backend->metrics()[0];
  EXPECT_EQ(m.clock_event_reasons_mask, 0x10101U);
  EXPECT_EQ(m.clock_event_reasons, (std::vector<std::string>{"gpu_idle", "display_clock_setting"}));
  ASSERT_EQ(fake.set_telemetry(0, 0, 1410, 1593, 0), 0);
  EXPECT_EQ(backend->metrics()[0].clock_event_reasons, std::vector<std::string>{});  // known: none active
}

TEST_F(NvmlBackendTest, NewReadingsAGpuDoesNotSupportAreLeftEmpty) {
  auto backend = make();
  fake.fail_next("nvmlDeviceGetTotalEnergyConsumption", 3 /* NVML_ERROR_NOT_SUPPORTED */, 3);
  fake.fail_next("nvmlDeviceGetClockInfo", 3, 6);
  fake.fail_next("nvmlDeviceGetCurrentClocksEventReasons", 3, 3);
  for (const GpuMetrics& m : backend->metrics()) {
    EXPECT_FALSE(m.energy_millijoules.has_value()) << m.index;
    EXPECT_FALSE(m.sm_clock_mhz.has_value()) << m.index;
    EXPECT_FALSE(m.memory_clock_mhz.has_value()) << m.index;
    EXPECT_FALSE(m.clock_event_reasons.has_value()) << m.index;
    EXPECT_FALSE(m.clock_event_reasons_mask.has_value()) << m.index;
    EXPECT_TRUE(m.memory_total_mib.has_value()) << m.index;
  }
  EXPECT_TRUE(backend->metrics()[0].energy_millijoules.has_value());  // the failures were those calls'

  fake.fail_next("nvmlDeviceGetTotalEnergyConsumption", 15 /* NVML_ERROR_GPU_IS_LOST */, 1);
  EXPECT_EQ(error_code([&] { backend->metrics(); }), "NVML_ERROR_GPU_IS_LOST");
}

TEST_F(NvmlBackendTest, MetricsDoNotInitialiseNvmlAgain) {
  auto backend = make();
  for (int i = 0; i < 3; ++i) backend->metrics();
  EXPECT_EQ(fake.call_count("nvmlInit_v2"), 1);
  EXPECT_EQ(fake.init_count(), 1);
}

TEST_F(NvmlBackendTest, NoUtilisationInMigMode) {
  auto backend = make();
  ASSERT_EQ(backend->set_mig_mode(0, true), MigModeChange::applied);
  const auto metrics = backend->metrics();
  EXPECT_FALSE(metrics[0].utilization_percent.has_value());
  EXPECT_TRUE(metrics[1].utilization_percent.has_value());
}

TEST_F(NvmlBackendTest, ProcessesOfWholeGpusAndMigInstances) {
  auto backend = make();
  ASSERT_EQ(backend->set_mig_mode(0, true), MigModeChange::applied);
  const MigInstance mig = backend->create_mig_instance(0, "3g.40gb", 0);
  ASSERT_EQ(fake.add_process(2, 100, 1ULL << 30, -1), 0);
  ASSERT_EQ(fake.add_process(0, 200, 512ULL << 20, mig.gpu_instance_id), 0);
  const std::vector<GpuProcess> expected = {{0, mig.gpu_instance_id, 200, 512, ""}, {2, -1, 100, 1024, ""}};
  EXPECT_EQ(backend->processes(), expected);
}

TEST_F(NvmlBackendTest, ManyProcesses) {
  auto backend = make();
  for (unsigned pid = 1; pid <= 40; ++pid) ASSERT_EQ(fake.add_process(1, pid, 1ULL << 20, -1), 0);
  const auto processes = backend->processes();
  ASSERT_EQ(processes.size(), 40U);
  EXPECT_EQ(processes.back().pid, 40U);
  EXPECT_EQ(processes.back().used_memory_mib, 1);
}

}  // namespace
}  // namespace gpupool::backend::nvml_test
