// Metrics and processes through the NVML backend.
#include <gtest/gtest.h>

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
