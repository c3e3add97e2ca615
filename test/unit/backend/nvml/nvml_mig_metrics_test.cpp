// Metrics of MIG instances through the NVML backend: memory through each
// instance's MIG device, activity through GPM (two samples, apart on the
// fake's clock: no test sleeps), and the GPM samples the backend keeps.
#include <gtest/gtest.h>

#include "fake_nvml_fixture.h"

namespace gpupool::backend::nvml_test {
namespace {

constexpr int kA100 = 0;  // of kThreeGpus: no GPM
constexpr int kH100 = 2;  // GPM

const InstanceMetrics* find(const GpuMetrics& m, int gpu_instance_id) {
  for (const InstanceMetrics& i : m.instances) {
    if (i.gpu_instance_id == gpu_instance_id) return &i;
  }
  return nullptr;
}

void expect_no_activity(const InstanceMetrics& i) {
  EXPECT_FALSE(i.utilization_percent.has_value()) << "GI " << i.gpu_instance_id;
  EXPECT_FALSE(i.graphics_engine_active.has_value()) << "GI " << i.gpu_instance_id;
  EXPECT_FALSE(i.dram_active.has_value()) << "GI " << i.gpu_instance_id;
}

class NvmlMigMetricsTest : public NvmlBackendTest {
 protected:
  void SetUp() override {
    backend = make();
    ASSERT_EQ(backend->set_mig_mode(kH100, true), MigModeChange::applied);
    big = backend->create_mig_instance(kH100, "3g.40gb", 4);
    small = backend->create_mig_instance(kH100, "1g.10gb", 0);
  }
  std::unique_ptr<GpuBackend> backend;
  MigInstance big, small;
};

TEST_F(NvmlMigMetricsTest, MemoryOfEachInstanceSortedById) {
  ASSERT_EQ(fake.add_process(kH100, 300, 512ULL << 20, big.gpu_instance_id), 0);
  const GpuMetrics m = backend->metrics()[kH100];
  ASSERT_EQ(m.instances.size(), 2U);
  EXPECT_LT(m.instances[0].gpu_instance_id, m.instances[1].gpu_instance_id);
  const InstanceMetrics* b = find(m, big.gpu_instance_id);
  const InstanceMetrics* s = find(m, small.gpu_instance_id);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(b->memory_total_mib, big.memory_mib);
  EXPECT_EQ(b->memory_used_mib, 512);
  EXPECT_EQ(b->memory_free_mib, big.memory_mib - 512);
  EXPECT_EQ(s->memory_total_mib, small.memory_mib);
  EXPECT_EQ(s->memory_used_mib, 0);
  EXPECT_NE(big.memory_mib, small.memory_mib);  // so the two cannot be mixed up unnoticed
  EXPECT_FALSE(m.utilization_percent.has_value());  // the whole GPU's, in MIG mode
  EXPECT_TRUE(backend->metrics()[1].instances.empty());  // MIG off
}

TEST_F(NvmlMigMetricsTest, GpmActivityIsTheRateBetweenTwoCalls) {
  ASSERT_EQ(fake.set_instance_activity(kH100, big.gpu_instance_id, 42, 30, 10), 0);
  ASSERT_EQ(fake.set_instance_activity(kH100, small.gpu_instance_id, 17, 12, 5), 0);
  const GpuMetrics first = backend->metrics()[kH100];
  ASSERT_EQ(first.instances.size(), 2U);
  for (const InstanceMetrics& i : first.instances) expect_no_activity(i);  // one sample: no rate yet

  fake.advance_clock(1000);
  const GpuMetrics second = backend->metrics()[kH100];
  const InstanceMetrics* b = find(second, big.gpu_instance_id);
  const InstanceMetrics* s = find(second, small.gpu_instance_id);
  ASSERT_NE(b, nullptr);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(b->utilization_percent, 42.0);
  EXPECT_EQ(b->graphics_engine_active, 0.42);
  EXPECT_EQ(b->dram_active, 0.10);
  EXPECT_EQ(s->utilization_percent, 17.0);
  EXPECT_EQ(s->graphics_engine_active, 0.17);
  EXPECT_EQ(s->dram_active, 0.05);
  EXPECT_TRUE(b->memory_total_mib.has_value());

  // The next call covers only the time since this one.
  ASSERT_EQ(fake.set_instance_activity(kH100, big.gpu_instance_id, 80, 70, 60), 0);
  fake.advance_clock(500);
  const GpuMetrics third = backend->metrics()[kH100];
  EXPECT_EQ(find(third, big.gpu_instance_id)->utilization_percent, 80.0);
  EXPECT_EQ(find(third, big.gpu_instance_id)->dram_active, 0.60);
  EXPECT_EQ(find(third, small.gpu_instance_id)->utilization_percent, 17.0);
}

TEST_F(NvmlMigMetricsTest, NoTimeBetweenSamplesGivesNoRate) {
  ASSERT_EQ(fake.set_instance_activity(kH100, big.gpu_instance_id, 42, 30, 10), 0);
  backend->metrics();
  const GpuMetrics again = backend->metrics()[kH100];
  for (const InstanceMetrics& i : again.instances) expect_no_activity(i);
}

TEST_F(NvmlMigMetricsTest, AnInstanceMadeAgainStartsAfresh) {
  backend->metrics();
  fake.advance_clock(1000);
  backend->destroy_mig_instance(kH100, small.gpu_instance_id);
  const MigInstance remade = backend->create_mig_instance(kH100, "1g.10gb", 0);
  ASSERT_EQ(remade.gpu_instance_id, small.gpu_instance_id);  // the id is reused...
  ASSERT_NE(remade.uuid, small.uuid);                        // ...the MIG device is new
  const GpuMetrics m = backend->metrics()[kH100];
  EXPECT_EQ(find(m, big.gpu_instance_id)->utilization_percent, 0.0);
  expect_no_activity(*find(m, remade.gpu_instance_id));
}

TEST_F(NvmlMigMetricsTest, SamplesAreKeptPerLiveInstanceAndFreedBeforeShutdown) {
  backend->metrics();
  EXPECT_EQ(fake.gpm_samples_held(), 2);  // one sample per instance
  fake.advance_clock(1000);
  backend->metrics();
  EXPECT_EQ(fake.gpm_samples_held(), 4);  // and the one before it
  fake.advance_clock(1000);
  backend->metrics();
  EXPECT_EQ(fake.gpm_samples_held(), 4);  // buffers are reused, not piled up
  backend->destroy_mig_instance(kH100, small.gpu_instance_id);
  backend->metrics();
  EXPECT_EQ(fake.gpm_samples_held(), 2);
  backend.reset();
  EXPECT_EQ(fake.gpm_samples_held(), 0);
  EXPECT_EQ(fake.init_count(), 0);
  EXPECT_EQ(fake.call_count("nvmlGpmSampleAlloc"), fake.call_count("nvmlGpmSampleFree"));
}

TEST_F(NvmlMigMetricsTest, GpmNotSupportedIsEmptyOtherFailuresThrow) {
  backend->metrics();
  fake.advance_clock(1000);
  fake.fail_next("nvmlGpmMigSampleGet", 3 /* NVML_ERROR_NOT_SUPPORTED */, 2);
  const GpuMetrics m = backend->metrics()[kH100];
  ASSERT_EQ(m.instances.size(), 2U);
  for (const InstanceMetrics& i : m.instances) {
    expect_no_activity(i);
    EXPECT_TRUE(i.memory_total_mib.has_value());
  }
  fake.advance_clock(1000);
  fake.fail_next("nvmlGpmMetricsGet", 999 /* NVML_ERROR_UNKNOWN */, 1);
  EXPECT_EQ(error_code([&] { backend->metrics(); }), "NVML_ERROR_UNKNOWN");
  fake.fail_next("nvmlGpmMigSampleGet", 15 /* NVML_ERROR_GPU_IS_LOST */, 1);
  EXPECT_EQ(error_code([&] { backend->metrics(); }), "NVML_ERROR_GPU_IS_LOST");
}

TEST_F(NvmlBackendTest, NoGpmBeforeHopper) {
  auto backend = make();
  ASSERT_EQ(backend->set_mig_mode(kA100, true), MigModeChange::applied);
  const MigInstance mig = backend->create_mig_instance(kA100, "3g.40gb", 0);
  ASSERT_EQ(fake.set_instance_activity(kA100, mig.gpu_instance_id, 50, 50, 50), 0);
  backend->metrics();
  fake.advance_clock(1000);
  const GpuMetrics m = backend->metrics()[kA100];
  ASSERT_EQ(m.instances.size(), 1U);
  expect_no_activity(m.instances[0]);
  EXPECT_EQ(m.instances[0].memory_total_mib, mig.memory_mib);
  EXPECT_EQ(fake.call_count("nvmlGpmMigSampleGet"), 0);
  EXPECT_EQ(fake.gpm_samples_held(), 0);
}

TEST(NvmlLegacyMigMetrics, InstancesWithoutMigDeviceHandlesOrGpm) {
  const FakeNvml& legacy = fake_nvml_legacy();
  ASSERT_EQ(legacy.reset(kThreeGpus), 0);
  NvmlOptions options;
  options.library_path = legacy.path;
  auto backend = make_nvml_backend(options);
  ASSERT_EQ(backend->set_mig_mode(kH100, true), MigModeChange::applied);
  const MigInstance mig = backend->create_mig_instance(kH100, "3g.40gb", 0);
  backend->metrics();
  legacy.advance_clock(1000);
  const GpuMetrics m = backend->metrics()[kH100];
  ASSERT_EQ(m.instances.size(), 1U);
  InstanceMetrics only_the_id;
  only_the_id.gpu_instance_id = mig.gpu_instance_id;
  EXPECT_EQ(m.instances[0], only_the_id);  // nothing more to say
  // Clock event reasons through the pre-R535 name.
  EXPECT_EQ(m.clock_event_reasons, std::vector<std::string>{"gpu_idle"});
  EXPECT_GT(legacy.call_count("nvmlDeviceGetCurrentClocksThrottleReasons"), 0);
}

}  // namespace
}  // namespace gpupool::backend::nvml_test
