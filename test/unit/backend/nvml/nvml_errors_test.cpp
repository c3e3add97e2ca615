// How the NVML backend fails: NVML's error names and texts, a library that
// cannot be loaded or lacks what it needs, and an older library without the
// newer (optional) symbols.
#include <gtest/gtest.h>

#include "fake_nvml_fixture.h"

namespace gpupool::backend::nvml_test {
namespace {

TEST_F(NvmlBackendTest, AFailingCallIsReportedWithNvmlsErrorName) {
  auto backend = make();
  fake.fail_next("nvmlDeviceGetName", 15 /* NVML_ERROR_GPU_IS_LOST */, 1);
  try {
    backend->inventory();
    FAIL() << "inventory succeeded";
  } catch (const BackendError& e) {
    EXPECT_EQ(e.code(), "NVML_ERROR_GPU_IS_LOST");
    EXPECT_STREQ(e.what(), "nvmlDeviceGetName(GPU 0): GPU is lost (NVML_ERROR_GPU_IS_LOST)");
  }
  EXPECT_EQ(backend->inventory().gpus.size(), 3U);  // the failure was one call's
}

TEST_F(NvmlBackendTest, UnsupportedMetricsAreLeftEmptyOtherFailuresThrow) {
  auto backend = make();
  fake.fail_next("nvmlDeviceGetPowerUsage", 3 /* NVML_ERROR_NOT_SUPPORTED */, 3);
  const auto metrics = backend->metrics();
  ASSERT_EQ(metrics.size(), 3U);
  EXPECT_FALSE(metrics[0].power_watts.has_value());
  EXPECT_TRUE(metrics[0].temperature_celsius.has_value());

  fake.fail_next("nvmlDeviceGetTotalEccErrors", 999 /* NVML_ERROR_UNKNOWN */, 1);
  EXPECT_EQ(error_code([&] { backend->metrics(); }), "NVML_ERROR_UNKNOWN");
}

TEST(NvmlBackendLoad, LibraryNotFound) {
  NvmlOptions options;
  options.library_path = "/nonexistent/libnvidia-ml.so.1";
  try {
    make_nvml_backend(options);
    FAIL() << "loaded a library that does not exist";
  } catch (const BackendError& e) {
    EXPECT_EQ(e.code(), "NVML_ERROR_LIBRARY_NOT_FOUND");
    EXPECT_NE(std::string(e.what()).find("/nonexistent/libnvidia-ml.so.1"), std::string::npos) << e.what();
  }
}

TEST(NvmlBackendLoad, LibraryWithoutNvml) {
  NvmlOptions options;
  options.library_path = "libm.so.6";  // loads, but is no NVML
  EXPECT_EQ(error_code([&] { make_nvml_backend(options); }), "NVML_ERROR_FUNCTION_NOT_FOUND");
}

TEST_F(NvmlBackendTest, InitFailure) {
  ASSERT_EQ(fake.reset(kThreeGpus), 0);
  fake.fail_next("nvmlInit_v2", 9 /* NVML_ERROR_DRIVER_NOT_LOADED */, 1);
  NvmlOptions options;
  options.library_path = fake.path;
  try {
    make_nvml_backend(options);
    FAIL() << "initialised";
  } catch (const BackendError& e) {
    EXPECT_EQ(e.code(), "NVML_ERROR_DRIVER_NOT_LOADED");
    EXPECT_STREQ(e.what(), "nvmlInit: Driver Not Loaded (NVML_ERROR_DRIVER_NOT_LOADED)");
  }
  EXPECT_EQ(fake.init_count(), 0);
}

TEST_F(NvmlBackendTest, AmdPartitionsAreNotSupported) {
  auto backend = make();
  EXPECT_EQ(error_code([&] { backend->set_amd_partition(0, "CPX", ""); }), "not-supported");
}

// An older libnvidia-ml: the backend falls back to the older symbols, and
// what needs a missing optional one (MIG device UUIDs) is left out.
class NvmlLegacyLibraryTest : public ::testing::Test {
 protected:
  std::unique_ptr<GpuBackend> make(const char* spec = kThreeGpus) {
    if (legacy.reset(spec) != 0) throw std::runtime_error("bad spec");
    NvmlOptions options;
    options.library_path = legacy.path;
    return make_nvml_backend(options);
  }
  const FakeNvml& legacy = fake_nvml_legacy();
};

TEST_F(NvmlLegacyLibraryTest, FallsBackToOlderSymbols) {
  auto backend = make();
  const Inventory inv = backend->inventory();
  EXPECT_EQ(inv.cuda_version, "12.8");
  ASSERT_EQ(inv.gpus.size(), 3U);
  EXPECT_EQ(inv.gpus[2].pci_bus_id, "00000000:17:00.0");
  EXPECT_EQ(inv.gpus[2].pci_device_id, 0x2330U);
  EXPECT_GT(legacy.call_count("nvmlDeviceGetPciInfo_v2"), 0);
  EXPECT_EQ(legacy.call_count("nvmlSystemGetCudaDriverVersion"), 1);

  const auto metrics = backend->metrics();
  EXPECT_EQ(metrics[1].temperature_celsius, 31.0);
  EXPECT_EQ(legacy.call_count("nvmlDeviceGetTemperature"), 3);
}

TEST_F(NvmlLegacyLibraryTest, MigWorksWithoutMigDeviceUuids) {
  auto backend = make();
  ASSERT_EQ(backend->set_mig_mode(0, true), MigModeChange::applied);
  const MigInstance mig = backend->create_mig_instance(0, "3g.40gb", 4);
  EXPECT_EQ(mig.profile, "3g.40gb");
  EXPECT_EQ(mig.compute_instance_id, 0);
  EXPECT_EQ(mig.uuid, "");  // nvmlDeviceGetMigDeviceHandleByIndex is missing
  EXPECT_EQ(backend->inventory().gpus[0].instances, std::vector<MigInstance>{mig});
  EXPECT_GT(legacy.call_count("nvmlDeviceGetGpuInstanceProfileInfo"), 0);
  EXPECT_GT(legacy.call_count("nvmlComputeInstanceGetInfo"), 0);
  backend->destroy_mig_instance(0, mig.gpu_instance_id);
  EXPECT_TRUE(backend->inventory().gpus[0].instances.empty());
}

TEST_F(NvmlLegacyLibraryTest, EventsAndProcessesThroughOlderSymbols) {
  auto backend = make();
  ASSERT_EQ(legacy.add_process(1, 77, 3ULL << 30, -1), 0);
  EXPECT_EQ(backend->processes(), (std::vector<GpuProcess>{{1, -1, 77, 3072, ""}}));
  EXPECT_TRUE(backend->wait_xid_events(std::chrono::milliseconds(0)).empty());
  ASSERT_EQ(legacy.inject_xid(2, 79), 1);
  const auto events = backend->wait_xid_events(std::chrono::seconds(10));
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].gpu_index, 2);
  EXPECT_EQ(events[0].xid, 79);
  EXPECT_GT(legacy.call_count("nvmlEventSetWait"), 0);
}

}  // namespace
}  // namespace gpupool::backend::nvml_test
