// The fake NVML itself, called as a program would: the answers the backend's
// tests rely on and that the real library is known to give (profile table and
// placements with MIG mode off, NOT_SUPPORTED for profiles a model lacks).
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "../../../../lib/backend/nvml/nvml_abi.h"
#include "fake_nvml_fixture.h"

namespace gpupool::backend::nvml_test {
namespace {

class FakeNvmlTest : public ::testing::Test {
 protected:
  void SetUp() override {
    init = fake.symbol<nvmlInit_v2_fn>("nvmlInit_v2");
    handle = fake.symbol<nvmlDeviceGetHandleByIndex_v2_fn>("nvmlDeviceGetHandleByIndex_v2");
    profile_info = fake.symbol<nvmlDeviceGetGpuInstanceProfileInfo_fn>("nvmlDeviceGetGpuInstanceProfileInfo");
    placements = fake.symbol<nvmlDeviceGetGpuInstancePossiblePlacements_v2_fn>(
        "nvmlDeviceGetGpuInstancePossiblePlacements_v2");
  }
  nvmlDevice_t device(int index) {
    nvmlDevice_t d{nullptr};
    EXPECT_EQ(handle(static_cast<unsigned>(index), &d), NVML_SUCCESS);
    return d;
  }

  const FakeNvml& fake = fake_nvml();
  nvmlInit_v2_fn init = nullptr;
  nvmlDeviceGetHandleByIndex_v2_fn handle = nullptr;
  nvmlDeviceGetGpuInstanceProfileInfo_fn profile_info = nullptr;
  nvmlDeviceGetGpuInstancePossiblePlacements_v2_fn placements = nullptr;
};

TEST_F(FakeNvmlTest, UninitialisedUntilInit) {
  ASSERT_EQ(fake.reset("a100-sxm4-80gb"), 0);
  nvmlDevice_t d{nullptr};
  EXPECT_EQ(handle(0, &d), NVML_ERROR_UNINITIALIZED);
  ASSERT_EQ(init(), NVML_SUCCESS);
  EXPECT_EQ(handle(0, &d), NVML_SUCCESS);
  EXPECT_EQ(handle(1, &d), NVML_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(fake.reset("no-such-gpu"), -1);
  EXPECT_EQ(fake.reset("mi300x-192gb"), -1);  // AMD
}

TEST_F(FakeNvmlTest, ProfileTableAndPlacementsWithMigOff) {
  ASSERT_EQ(fake.reset("a100-sxm4-80gb,a30-24gb,t4-16gb"), 0);
  ASSERT_EQ(init(), NVML_SUCCESS);
  nvmlGpuInstanceProfileInfo_t info{};
  ASSERT_EQ(profile_info(device(0), NVML_GPU_INSTANCE_PROFILE_3_SLICE, &info), NVML_SUCCESS);
  EXPECT_EQ(info.id, 9U);
  EXPECT_EQ(info.sliceCount, 3U);
  EXPECT_EQ(info.instanceCount, 2U);
  EXPECT_EQ(info.memorySizeMB, 40192U);
  ASSERT_EQ(profile_info(device(0), NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2, &info), NVML_SUCCESS);
  EXPECT_EQ(info.id, 15U);  // 1g.20gb
  ASSERT_EQ(profile_info(device(0), NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1, &info), NVML_SUCCESS);
  EXPECT_EQ(info.id, 20U);  // 1g.10gb+me
  EXPECT_EQ(profile_info(device(0), NVML_GPU_INSTANCE_PROFILE_8_SLICE, &info), NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(profile_info(device(0), NVML_GPU_INSTANCE_PROFILE_COUNT, &info), NVML_ERROR_INVALID_ARGUMENT);

  // A30: other ids for the same shapes, no 1-slice profile with twice the memory.
  ASSERT_EQ(profile_info(device(1), NVML_GPU_INSTANCE_PROFILE_1_SLICE, &info), NVML_SUCCESS);
  EXPECT_EQ(info.id, 14U);
  ASSERT_EQ(profile_info(device(1), NVML_GPU_INSTANCE_PROFILE_4_SLICE, &info), NVML_SUCCESS);
  EXPECT_EQ(info.id, 0U);
  EXPECT_EQ(profile_info(device(1), NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2, &info), NVML_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(profile_info(device(2), NVML_GPU_INSTANCE_PROFILE_1_SLICE, &info), NVML_ERROR_NOT_SUPPORTED);

  unsigned count = 0;
  ASSERT_EQ(placements(device(0), 9, nullptr, &count), NVML_SUCCESS);
  ASSERT_EQ(count, 2U);
  nvmlGpuInstancePlacement_t found[2] = {};
  ASSERT_EQ(placements(device(0), 9, found, &count), NVML_SUCCESS);
  EXPECT_EQ(found[0].start, 0U);
  EXPECT_EQ(found[1].start, 4U);
  EXPECT_EQ(found[1].size, 4U);
  EXPECT_EQ(placements(device(0), 42, nullptr, &count), NVML_ERROR_NOT_SUPPORTED);
}

// RTX PRO 6000 Blackwell: every profile of the catalog answers at the index
// real drivers use for its attribute (+me, +me.all, +gfx, -me), so the backend,
// which walks the indices, finds all eleven.
TEST_F(FakeNvmlTest, EveryRtxProProfileHasItsIndex) {
  ASSERT_EQ(fake.reset("rtx-pro-6000-blackwell-96gb"), 0);
  ASSERT_EQ(init(), NVML_SUCCESS);
  const std::vector<std::pair<unsigned, unsigned>> index_to_id = {
      {NVML_GPU_INSTANCE_PROFILE_1_SLICE, 14},        {NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1, 21},
      {NVML_GPU_INSTANCE_PROFILE_1_SLICE_GFX, 47},    {NVML_GPU_INSTANCE_PROFILE_1_SLICE_ALL_ME, 65},
      {NVML_GPU_INSTANCE_PROFILE_1_SLICE_NO_ME, 67},  {NVML_GPU_INSTANCE_PROFILE_2_SLICE, 5},
      {NVML_GPU_INSTANCE_PROFILE_2_SLICE_GFX, 35},    {NVML_GPU_INSTANCE_PROFILE_2_SLICE_ALL_ME, 64},
      {NVML_GPU_INSTANCE_PROFILE_2_SLICE_NO_ME, 66},  {NVML_GPU_INSTANCE_PROFILE_4_SLICE, 0},
      {NVML_GPU_INSTANCE_PROFILE_4_SLICE_GFX, 32},
  };
  for (const auto& [index, id] : index_to_id) {
    nvmlGpuInstanceProfileInfo_t info{};
    ASSERT_EQ(profile_info(device(0), index, &info), NVML_SUCCESS) << "index " << index;
    EXPECT_EQ(info.id, id) << "index " << index;
  }
  nvmlGpuInstanceProfileInfo_t info{};
  ASSERT_EQ(profile_info(device(0), NVML_GPU_INSTANCE_PROFILE_1_SLICE_ALL_ME, &info), NVML_SUCCESS);
  EXPECT_EQ(info.jpegCount, 1U) << "+me.all holds the media extensions";
  ASSERT_EQ(profile_info(device(0), NVML_GPU_INSTANCE_PROFILE_1_SLICE_NO_ME, &info), NVML_SUCCESS);
  EXPECT_EQ(info.jpegCount, 0U) << "-me holds none";
  EXPECT_EQ(profile_info(device(0), NVML_GPU_INSTANCE_PROFILE_7_SLICE, &info), NVML_ERROR_NOT_SUPPORTED);
}

}  // namespace
}  // namespace gpupool::backend::nvml_test
