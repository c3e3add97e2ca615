// XID events through the NVML backend: delivered from one event set, and a
// wait without events ending empty at its timeout.
#include <gtest/gtest.h>

#include <thread>

#include "fake_nvml_fixture.h"

namespace gpupool::backend::nvml_test {
namespace {

TEST_F(NvmlBackendTest, DeliversQueuedXidEvents) {
  auto backend = make();
  // The first wait creates the event set and registers every GPU.
  EXPECT_TRUE(backend->wait_xid_events(std::chrono::milliseconds(0)).empty());
  ASSERT_EQ(fake.inject_xid(1, 79), 1);
  ASSERT_EQ(fake.inject_xid(0, 48), 1);
  const auto events = backend->wait_xid_events(std::chrono::seconds(10));
  ASSERT_EQ(events.size(), 2U);
  EXPECT_EQ(events[0].gpu_index, 1);
  EXPECT_EQ(events[0].xid, 79);
  EXPECT_EQ(events[1].gpu_index, 0);
  EXPECT_EQ(events[1].xid, 48);
  EXPECT_GT(events[0].time_unix_ms, 1'600'000'000'000);
  EXPECT_EQ(fake.call_count("nvmlEventSetCreate"), 1);
  EXPECT_EQ(fake.call_count("nvmlDeviceRegisterEvents"), 3);
}

TEST_F(NvmlBackendTest, AWaitWithoutEventsTimesOut) {
  auto backend = make();
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(backend->wait_xid_events(std::chrono::milliseconds(20)).empty());
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(20));
  EXPECT_TRUE(backend->wait_xid_events(std::chrono::milliseconds(0)).empty());
  EXPECT_EQ(fake.call_count("nvmlEventSetCreate"), 1);  // created once
  EXPECT_EQ(fake.call_count("nvmlEventSetWait_v2"), 2);
}

TEST_F(NvmlBackendTest, AWaitEndsWhenAnEventArrives) {
  auto backend = make();
  EXPECT_TRUE(backend->wait_xid_events(std::chrono::milliseconds(0)).empty());
  std::thread raiser([&] { fake.inject_xid(2, 94); });
  const auto events = backend->wait_xid_events(std::chrono::minutes(5));
  raiser.join();
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].gpu_index, 2);
  EXPECT_EQ(events[0].xid, 94);
}

TEST_F(NvmlBackendTest, AFailingWaitIsReported) {
  auto backend = make();
  fake.fail_next("nvmlEventSetWait_v2", 15 /* NVML_ERROR_GPU_IS_LOST */, 1);
  EXPECT_EQ(error_code([&] { backend->wait_xid_events(std::chrono::milliseconds(0)); }), "NVML_ERROR_GPU_IS_LOST");
  auto other = make();
  fake.fail_next("nvmlDeviceRegisterEvents", 3 /* NVML_ERROR_NOT_SUPPORTED */, 1);
  EXPECT_TRUE(other->wait_xid_events(std::chrono::milliseconds(0)).empty());
  EXPECT_EQ(fake.inject_xid(0, 13), 0);  // GPU 0 could not be registered
  EXPECT_EQ(fake.inject_xid(1, 13), 1);
  EXPECT_EQ(other->wait_xid_events(std::chrono::seconds(10)).size(), 1U);
}

}  // namespace
}  // namespace gpupool::backend::nvml_test
