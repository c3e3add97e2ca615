#include "gpupool/backend/simulated_backend.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

namespace gpupool::backend {
namespace {

namespace fs = std::filesystem;

class SimulatedBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("simgpu-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  SimulatedOptions options(const std::string& gpus) {
    SimulatedOptions o;
    o.node_name = "node-a";
    o.gpus = parse_simulated_gpus(gpus, gpu::Catalog::builtin());
    o.state_path = (dir_ / "state.json").string();
    return o;
  }
  void write_world(const std::string& text) {
    std::ofstream(dir_ / "world.yaml") << text;
    // A new mtime even within one clock tick: the backend re-reads on change.
    fs::last_write_time(dir_ / "world.yaml", fs::file_time_type::clock::now() + std::chrono::seconds(++bumps_));
  }
  fs::path dir_;
  int bumps_ = 0;
};

TEST_F(SimulatedBackendTest, ParsesTheFlag) {
  auto g = parse_simulated_gpus("a100-sxm4-80gb=8,t4", gpu::Catalog::builtin());
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0], (SimulatedGpuGroup{"a100-sxm4-80gb", 8}));
  EXPECT_EQ(g[1], (SimulatedGpuGroup{"t4-16gb", 1}));
  EXPECT_THROW(parse_simulated_gpus("nosuchgpu=1", gpu::Catalog::builtin()), BackendError);
  EXPECT_THROW(parse_simulated_gpus("a100-sxm4-80gb=x", gpu::Catalog::builtin()), BackendError);
  EXPECT_THROW(parse_simulated_gpus("a100-sxm4-80gb=99", gpu::Catalog::builtin()), BackendError);
  EXPECT_THROW(parse_simulated_gpus("t4,,t4", gpu::Catalog::builtin()), BackendError);
}

TEST_F(SimulatedBackendTest, InventoryIsStableAndComplete) {
  SimulatedBackend b(options("a100-sxm4-80gb=2"));
  Inventory inv = b.inventory();
  ASSERT_EQ(inv.gpus.size(), 2u);
  EXPECT_EQ(inv.gpus[0].catalog_id, "a100-sxm4-80gb");
  EXPECT_EQ(inv.gpus[0].name, "NVIDIA A100-SXM4-80GB");
  EXPECT_TRUE(inv.gpus[0].mig_capable);
  EXPECT_EQ(inv.gpus[0].mig.current, MigMode::disabled);
  EXPECT_NE(inv.gpus[0].uuid, inv.gpus[1].uuid);
  EXPECT_EQ(inv.gpus[0].uuid.rfind("GPU-", 0), 0u);
  ASSERT_EQ(inv.links.size(), 1u);
  EXPECT_EQ(link_label(inv.links[0]), "NV12");
  SimulatedBackend again(options("a100-sxm4-80gb=2"));
  EXPECT_EQ(again.inventory(), inv);
}

TEST_F(SimulatedBackendTest, MigFollowsTheCatalogAndPersists) {
  {
    SimulatedBackend b(options("a100-sxm4-80gb=1"));
    EXPECT_EQ(b.set_mig_mode(0, true), MigModeChange::applied);
    auto i = b.create_mig_instance(0, "3g.40gb", 4);
    EXPECT_EQ(i.placement_size, 4);
    EXPECT_GE(i.gpu_instance_id, 1);
    // 3g.40gb may start at 0 or 4 only (nvidia-smi mig -lgipp).
    try {
      b.create_mig_instance(0, "3g.40gb", 2);
      FAIL() << "wrong placement accepted";
    } catch (const BackendError& e) {
      EXPECT_EQ(e.code(), "NVML_ERROR_INVALID_ARGUMENT");
    }
    // Overlap with the instance at 4-7.
    try {
      b.create_mig_instance(0, "4g.40gb", 0);
      b.create_mig_instance(0, "1g.10gb", 5);
      FAIL() << "overlap accepted";
    } catch (const BackendError& e) {
      EXPECT_EQ(e.code(), "NVML_ERROR_INSUFFICIENT_RESOURCES");
    }
    EXPECT_THROW(b.create_mig_instance(0, "9g.99gb", 0), BackendError);
  }
  // A new backend object (a restarted agent) reads the same hardware state.
  SimulatedBackend b(options("a100-sxm4-80gb=1"));
  auto inv = b.inventory();
  ASSERT_EQ(inv.gpus[0].instances.size(), 2u);
  EXPECT_EQ(inv.gpus[0].instances[0].profile, "4g.40gb");
  EXPECT_EQ(inv.gpus[0].instances[1].profile, "3g.40gb");
  EXPECT_THROW(b.set_mig_mode(0, false), BackendError);  // instances first
  b.destroy_mig_instance(0, inv.gpus[0].instances[0].gpu_instance_id);
  b.destroy_mig_instance(0, inv.gpus[0].instances[1].gpu_instance_id);
  EXPECT_EQ(b.set_mig_mode(0, false), MigModeChange::applied);
  EXPECT_EQ(b.inventory().gpus[0].mig.current, MigMode::disabled);
}

TEST_F(SimulatedBackendTest, BusyGpuLeavesMigModePending) {
  SimulatedBackend b(options("h100-sxm5-80gb=1"));
  b.set_gpu_pods({{"uid-1", "team/train"}});
  EXPECT_EQ(b.processes().size(), 1u);
  EXPECT_EQ(b.set_mig_mode(0, true), MigModeChange::reset_required);
  auto g = b.inventory().gpus[0];
  EXPECT_EQ(g.mig.current, MigMode::disabled);
  EXPECT_EQ(g.mig.pending, MigMode::enabled);
  b.set_gpu_pods({});
  EXPECT_TRUE(b.processes().empty());
  EXPECT_EQ(b.set_mig_mode(0, true), MigModeChange::applied);
  EXPECT_EQ(b.inventory().gpus[0].mig.current, MigMode::enabled);
}

TEST_F(SimulatedBackendTest, WorldFileChangesGpusAndInjectsFaults) {
  write_world("gpus: [{model: t4, count: 2}]\ndriverVersion: \"535.1.1\"\ninstall: {seconds: 0, fail: \"kernel module build failed\"}\n");
  auto o = options("t4=1");
  o.config_path = (dir_ / "world.yaml").string();
  SimulatedBackend b(o);
  EXPECT_EQ(b.inventory().gpus.size(), 2u);
  EXPECT_EQ(b.inventory().driver_version, "535.1.1");
  try {
    b.install_driver("550.1.1", {});
    FAIL() << "install should fail";
  } catch (const BackendError& e) {
    EXPECT_EQ(e.code(), "install-failed");
    EXPECT_STREQ(e.what(), "kernel module build failed");
  }
  EXPECT_EQ(b.inventory().driver_version, "535.1.1");
  write_world("gpus: [{model: t4, count: 1}]\ninstall: {seconds: 0}\nxids: [{gpu: 0, xid: 79}]\ntemperatureCelsius: {0: 95}\n");
  EXPECT_EQ(b.inventory().gpus.size(), 1u);
  b.install_driver("550.1.1", {});
  EXPECT_EQ(b.inventory().driver_version, "550.1.1");
  auto xids = b.wait_xid_events(std::chrono::milliseconds(0));
  ASSERT_EQ(xids.size(), 1u);
  EXPECT_EQ(xids[0].xid, 79);
  EXPECT_TRUE(b.wait_xid_events(std::chrono::milliseconds(10)).empty());  // delivered once
  EXPECT_EQ(b.metrics()[0].temperature_celsius, 95.0);
  write_world("gpus: [{model: nosuch}]\n");
  EXPECT_THROW(b.inventory(), BackendError);
}

TEST_F(SimulatedBackendTest, AmdPartitionsObeyTheModel) {
  SimulatedBackend b(options("mi300x=1"));
  auto g = b.inventory().gpus[0];
  EXPECT_EQ(g.vendor, gpu::Vendor::amd);
  EXPECT_FALSE(g.compute_partition.empty());
  b.set_amd_partition(0, "CPX", "NPS4");
  g = b.inventory().gpus[0];
  EXPECT_EQ(g.compute_partition, "CPX");
  EXPECT_EQ(g.memory_partition, "NPS4");
  EXPECT_THROW(b.set_mig_mode(0, true), BackendError);
}

}  // namespace
}  // namespace gpupool::backend
