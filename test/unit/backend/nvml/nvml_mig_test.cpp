// MIG through the NVML backend over the fake NVML: mode changes (applied and
// pending a reset), instances created at placements and destroyed, and the
// driver's refusals passed on with NVML's error names.
#include <gtest/gtest.h>

#include "fake_nvml_fixture.h"

namespace gpupool::backend::nvml_test {
namespace {

class NvmlMigTest : public NvmlBackendTest {
 protected:
  void SetUp() override {
    backend = make();
    ASSERT_EQ(backend->set_mig_mode(0, true), MigModeChange::applied);
  }
  std::vector<MigInstance> instances(int gpu) { return backend->inventory().gpus.at(static_cast<std::size_t>(gpu)).instances; }

  std::unique_ptr<GpuBackend> backend;
};

TEST_F(NvmlMigTest, EnablingMigOnAnIdleGpuApplies) {
  const Inventory inv = backend->inventory();
  EXPECT_EQ(inv.gpus[0].mig, (MigModeState{MigMode::enabled, MigMode::enabled}));
  EXPECT_EQ(inv.gpus[1].mig, (MigModeState{MigMode::disabled, MigMode::disabled}));
  EXPECT_TRUE(inv.gpus[0].instances.empty());
  EXPECT_EQ(backend->set_mig_mode(0, false), MigModeChange::applied);
  EXPECT_EQ(backend->inventory().gpus[0].mig, (MigModeState{MigMode::disabled, MigMode::disabled}));
}

TEST_F(NvmlMigTest, CreatesAtPlacementsAndDestroys) {
  const MigInstance three = backend->create_mig_instance(0, "3g.40gb", 4);
  EXPECT_EQ(three.profile, "3g.40gb");
  EXPECT_EQ(three.profile_id, 9);
  EXPECT_EQ(three.placement_start, 4);
  EXPECT_EQ(three.placement_size, 4);
  EXPECT_EQ(three.gpu_instance_id, 1);
  EXPECT_EQ(three.compute_instance_id, 0);
  EXPECT_EQ(three.uuid.rfind("MIG-", 0), 0U) << three.uuid;
  EXPECT_EQ(three.memory_mib, 40192) << "the size NVML's profile info reports";

  const MigInstance four = backend->create_mig_instance(0, "4g.40gb", 0);
  EXPECT_EQ(four.profile_id, 5);
  EXPECT_EQ(four.gpu_instance_id, 2);
  EXPECT_NE(four.uuid, three.uuid);

  // Sorted by placement start, as the inventory reports them.
  EXPECT_EQ(instances(0), (std::vector<MigInstance>{four, three}));

  backend->destroy_mig_instance(0, three.gpu_instance_id);
  EXPECT_EQ(instances(0), (std::vector<MigInstance>{four}));
  EXPECT_EQ(error_code([&] { backend->destroy_mig_instance(0, three.gpu_instance_id); }), "NVML_ERROR_NOT_FOUND");
  // Its compute instance went first, then the GPU instance.
  EXPECT_EQ(fake.call_count("nvmlComputeInstanceDestroy"), 1);
  EXPECT_EQ(fake.call_count("nvmlGpuInstanceDestroy"), 1);
}

TEST_F(NvmlMigTest, FullGpuProfileOnH100) {
  ASSERT_EQ(backend->set_mig_mode(2, true), MigModeChange::applied);
  const MigInstance whole = backend->create_mig_instance(2, "7g.80gb", 0);
  EXPECT_EQ(whole.profile_id, 0);
  EXPECT_EQ(whole.gpu_instance_id, 0);
  EXPECT_EQ(whole.placement_size, 8);
  EXPECT_EQ(instances(2), std::vector<MigInstance>{whole});
  EXPECT_EQ(error_code([&] { backend->create_mig_instance(2, "1g.10gb", 7); }), "NVML_ERROR_INVALID_ARGUMENT");
  EXPECT_EQ(error_code([&] { backend->create_mig_instance(2, "1g.10gb", 6); }), "NVML_ERROR_INSUFFICIENT_RESOURCES");
}

TEST_F(NvmlMigTest, RefusesAPlacementTheProfileDoesNotHave) {
  try {
    backend->create_mig_instance(0, "3g.40gb", 2);
    FAIL() << "created at memory slice 2";
  } catch (const BackendError& e) {
    EXPECT_EQ(e.code(), "NVML_ERROR_INVALID_ARGUMENT");
    EXPECT_NE(std::string(e.what()).find("nvmlDeviceCreateGpuInstanceWithPlacement"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("3g.40gb at memory slice 2"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(instances(0).empty());
}

TEST_F(NvmlMigTest, RefusesOverlapAndMoreThanTheMaximum) {
  backend->create_mig_instance(0, "3g.40gb", 0);
  EXPECT_EQ(error_code([&] { backend->create_mig_instance(0, "2g.20gb", 2); }), "NVML_ERROR_INSUFFICIENT_RESOURCES");
  backend->create_mig_instance(0, "1g.10gb+me", 4);
  EXPECT_EQ(error_code([&] { backend->create_mig_instance(0, "1g.10gb+me", 5); }), "NVML_ERROR_INSUFFICIENT_RESOURCES");
  backend->create_mig_instance(0, "1g.10gb", 5);
  backend->create_mig_instance(0, "1g.10gb", 6);
  // Memory slice 7 is free, but no 1g.10gb may start there.
  EXPECT_EQ(error_code([&] { backend->create_mig_instance(0, "1g.10gb", 7); }), "NVML_ERROR_INVALID_ARGUMENT");
  ASSERT_EQ(instances(0).size(), 4U);
  EXPECT_EQ(instances(0)[1].profile, "1g.10gb+me");
}

TEST_F(NvmlMigTest, RefusesWithMigOffAndOnGpusWithoutMig) {
  EXPECT_EQ(error_code([&] { backend->create_mig_instance(1, "3g.40gb", 0); }), "NVML_ERROR_NOT_SUPPORTED");
  EXPECT_EQ(error_code([&] { backend->create_mig_instance(0, "5g.40gb", 0); }), "not-found");

  auto t4 = make("t4-16gb");
  EXPECT_EQ(error_code([&] { t4->set_mig_mode(0, true); }), "NVML_ERROR_NOT_SUPPORTED");
  EXPECT_EQ(error_code([&] { t4->create_mig_instance(0, "1g.10gb", 0); }), "not-supported");
  EXPECT_EQ(error_code([&] { t4->set_mig_mode(3, true); }), "NVML_ERROR_INVALID_ARGUMENT");
}

TEST_F(NvmlMigTest, ModeChangeOnAGpuInUseWaitsForAReset) {
  ASSERT_EQ(fake.set_mig_in_use(1, 1), 0);
  EXPECT_EQ(backend->set_mig_mode(1, true), MigModeChange::reset_required);
  EXPECT_EQ(backend->inventory().gpus[1].mig, (MigModeState{MigMode::disabled, MigMode::enabled}));
  EXPECT_EQ(error_code([&] { backend->create_mig_instance(1, "3g.40gb", 0); }), "NVML_ERROR_NOT_SUPPORTED");

  EXPECT_EQ(fake.reset_gpu(1), 19);  // NVML_ERROR_IN_USE: still busy
  ASSERT_EQ(fake.set_mig_in_use(1, 0), 0);
  ASSERT_EQ(fake.reset_gpu(1), 0);
  EXPECT_EQ(backend->inventory().gpus[1].mig, (MigModeState{MigMode::enabled, MigMode::enabled}));
  // Asking again for the mode it now has is applied at once.
  EXPECT_EQ(backend->set_mig_mode(1, true), MigModeChange::applied);
}

TEST_F(NvmlMigTest, DisablingMigWithInstancesWaitsForAReset) {
  backend->create_mig_instance(0, "7g.80gb", 0);
  EXPECT_EQ(backend->set_mig_mode(0, false), MigModeChange::reset_required);
  EXPECT_EQ(backend->inventory().gpus[0].mig, (MigModeState{MigMode::enabled, MigMode::disabled}));
}

TEST_F(NvmlMigTest, AFailedComputeInstanceLeavesNoGpuInstance) {
  fake.fail_next("nvmlGpuInstanceCreateComputeInstance", 23 /* NVML_ERROR_INSUFFICIENT_RESOURCES */, 1);
  EXPECT_EQ(error_code([&] { backend->create_mig_instance(0, "2g.20gb", 2); }), "NVML_ERROR_INSUFFICIENT_RESOURCES");
  EXPECT_TRUE(instances(0).empty());
  EXPECT_EQ(backend->create_mig_instance(0, "2g.20gb", 2).placement_start, 2);
}

TEST_F(NvmlMigTest, DestroyingAnInstanceInUseIsRefused) {
  const MigInstance mig = backend->create_mig_instance(0, "1g.20gb", 6);
  ASSERT_EQ(fake.add_process(0, 4242, 1ULL << 30, mig.gpu_instance_id), 0);
  EXPECT_EQ(error_code([&] { backend->destroy_mig_instance(0, mig.gpu_instance_id); }), "NVML_ERROR_IN_USE");
  EXPECT_EQ(instances(0), std::vector<MigInstance>{mig});
}

}  // namespace
}  // namespace gpupool::backend::nvml_test
