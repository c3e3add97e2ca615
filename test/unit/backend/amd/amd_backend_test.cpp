// The AMD backend against a fake amd-smi / rocm-smi: exact commands, results
// and error codes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "amd_fixtures.h"
#include "fake_tool.h"
#include "gpupool/backend/amd_backend.h"

namespace gpupool::backend {
namespace {

using amd_test::fixture;
using amd_test::FakeTool;
using amd_test::Reply;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const char* kReadGpu0 = "static -g 0 --partition --json";

std::unique_ptr<GpuBackend> amd_smi(FakeTool& fake) {
  AmdOptions options;
  options.amd_smi_path = fake.install();
  options.rocm_smi_path = "/nonexistent/rocm-smi";  // amd-smi is preferred
  options.timeout = std::chrono::seconds(20);
  return make_amd_backend(options);
}

// Runs `call`, expecting a BackendError; returns it.
template <class F>
BackendError error_of(F&& call) {
  try {
    call();
  } catch (const BackendError& e) {
    return e;
  }
  ADD_FAILURE() << "no BackendError thrown";
  return BackendError("", "");
}

TEST(AmdSmiBackend, InventoryFromStaticAndList) {
  FakeTool fake;
  fake.on("static --json", {fixture("amd-smi-static_mi300x-cpx-nps4.json")});
  fake.on("list --json", {fixture("amd-smi-list_mi300x-cpx-nps4.json")});
  auto backend = amd_smi(fake);
  EXPECT_EQ(backend->name(), "amd");
  const Inventory inv = backend->inventory();
  ASSERT_EQ(inv.gpus.size(), 8u);
  EXPECT_EQ(inv.gpus[5].uuid, "15ff74a1-0000-1000-8042-9b1c5d7e3a05");
  EXPECT_EQ(inv.gpus[5].pci_bus_id, "0000:05:00.5");
  EXPECT_EQ(inv.gpus[5].catalog_id, "mi300x-192gb");
  EXPECT_EQ(inv.gpus[5].compute_partition, "CPX");
  EXPECT_EQ(inv.gpus[5].memory_partition, "NPS4");
  EXPECT_THAT(fake.calls(), ElementsAre("static --json", "list --json"));
}

TEST(AmdSmiBackend, MetricsAndProcesses) {
  FakeTool fake;
  fake.on("metric --json", {fixture("amd-smi-metric_2x-mi300x_gpu_data.json")});
  fake.on("process --json", {fixture("amd-smi-process_mi300x.json")});
  auto backend = amd_smi(fake);
  const auto metrics = backend->metrics();
  ASSERT_EQ(metrics.size(), 2u);
  EXPECT_EQ(metrics[0].power_watts, 612.0);
  const auto procs = backend->processes();
  ASSERT_EQ(procs.size(), 2u);
  EXPECT_EQ(procs[1].pid, 41877u);
  EXPECT_THAT(fake.calls(), ElementsAre("metric --json", "process --json"));
}

TEST(AmdSmiBackend, ComputeThenMemoryThenDriverReloadRequired) {
  FakeTool fake;
  fake.on(kReadGpu0, {fixture("amd-smi-static-partition_gpu0_spx-nps1.json"), "", 0, false,
                      fixture("amd-smi-static-partition_gpu0_cpx-nps1.json")});
  fake.on("set -g 0 --compute-partition CPX", {"GPU: 0\n    ACCELERATOR_PARTITION: Successfully set accelerator partition to CPX\n"});
  fake.on("set -g 0 --memory-partition NPS4",
          {"GPU: 0\n    MEMORY_PARTITION: Successfully set memory partition to NPS4\n", "", 0, true});
  auto backend = amd_smi(fake);
  const BackendError e = error_of([&] { backend->set_amd_partition(0, "CPX", "NPS4"); });
  EXPECT_EQ(e.code(), "driver-reload-required");
  EXPECT_STREQ(e.what(),
               "memory partition NPS4 set on GPU 0; it takes effect after the amdgpu driver is reloaded "
               "(modprobe -r amdgpu && modprobe amdgpu) with no process using the GPUs");
  EXPECT_THAT(fake.calls(), ElementsAre(kReadGpu0, "set -g 0 --compute-partition CPX",
                                        "set -g 0 --memory-partition NPS4", kReadGpu0));
}

TEST(AmdSmiBackend, MemorySetThatReloadedTheDriverItselfSucceeds) {
  FakeTool fake;  // amd-smi of ROCm 6.3 restarts amdgpu inside the set
  fake.on(kReadGpu0, {fixture("amd-smi-static-partition_gpu0_cpx-nps1.json"), "", 0, false,
                      fixture("amd-smi-static-partition_gpu0_cpx-nps4.json")});
  fake.on("set -g 0 --memory-partition NPS4", {"MEMORY_PARTITION: Successfully set memory partition to NPS4\n", "", 0, true});
  auto backend = amd_smi(fake);
  EXPECT_NO_THROW(backend->set_amd_partition(0, "CPX", "NPS4"));
  EXPECT_THAT(fake.calls(), ElementsAre(kReadGpu0, "set -g 0 --memory-partition NPS4", kReadGpu0));
}

TEST(AmdSmiBackend, ModesAlreadyCurrentRunNoSet) {
  FakeTool fake;
  fake.on(kReadGpu0, {fixture("amd-smi-static-partition_gpu0_cpx-nps4.json")});
  auto backend = amd_smi(fake);
  EXPECT_NO_THROW(backend->set_amd_partition(0, "CPX", "NPS4"));
  EXPECT_NO_THROW(backend->set_amd_partition(0, "", ""));  // nothing asked: not even a read
  EXPECT_THAT(fake.calls(), ElementsAre(kReadGpu0));
}

TEST(AmdSmiBackend, BackToNps1SetsMemoryFirstAndLeavesComputeForAfterTheReload) {
  FakeTool fake;
  fake.on(kReadGpu0, {fixture("amd-smi-static-partition_gpu0_cpx-nps4.json")});
  fake.on("set -g 0 --memory-partition NPS1", {"MEMORY_PARTITION: Successfully set memory partition to NPS1\n"});
  auto backend = amd_smi(fake);
  const BackendError e = error_of([&] { backend->set_amd_partition(0, "SPX", "NPS1"); });
  EXPECT_EQ(e.code(), "driver-reload-required");
  EXPECT_THAT(e.what(), HasSubstr("memory partition NPS1 set on GPU 0"));
  EXPECT_THAT(e.what(), HasSubstr("compute partition SPX is applied by the same request made after the reload"));
  EXPECT_THAT(fake.calls(), ElementsAre(kReadGpu0, "set -g 0 --memory-partition NPS1", kReadGpu0));
}

TEST(AmdSmiBackend, FailingSetIsExitNWithCommandAndStderr) {
  FakeTool fake;
  fake.on(kReadGpu0, {fixture("amd-smi-static-partition_gpu0_spx-nps1.json")});
  fake.on("set -g 0 --compute-partition CPX", {"", "Permission denied: sudo is required\n", 3});
  auto backend = amd_smi(fake);
  const BackendError e = error_of([&] { backend->set_amd_partition(0, "CPX", ""); });
  EXPECT_EQ(e.code(), "exit 3");
  EXPECT_STREQ(e.what(), "`amd-smi set -g 0 --compute-partition CPX` exited with status 3: Permission denied: sudo is required");
}

TEST(AmdSmiBackend, StatusPrintedWithExitZeroIsTheErrorCode) {
  FakeTool fake;
  fake.on(kReadGpu0, {fixture("amd-smi-static-partition_gpu0_cpx-nps4.json")});
  fake.on("set -g 0 --compute-partition SPX",
          {"GPU: 0\n    ACCELERATOR_PARTITION: [AMDSMI_STATUS_SETTING_UNAVAILABLE] Unable to set accelerator partition "
           "to SPX on GPU ID: 0 BDF:0000:05:00.0\n"});
  auto backend = amd_smi(fake);
  const BackendError e = error_of([&] { backend->set_amd_partition(0, "SPX", ""); });
  EXPECT_EQ(e.code(), "AMDSMI_STATUS_SETTING_UNAVAILABLE");
  EXPECT_THAT(e.what(), HasSubstr("`amd-smi set -g 0 --compute-partition SPX` failed: GPU: 0"));
}

TEST(AmdSmiBackend, ConfirmationPromptIsAnsweredForMemoryPartitionChanges) {
  FakeTool fake;  // asks "Do you accept these terms? [Y/N]" and fails unless it reads Y
  fake.on(kReadGpu0, {fixture("amd-smi-static-partition_gpu0_cpx-nps1.json"), "", 0, false,
                      fixture("amd-smi-static-partition_gpu0_cpx-nps4.json")});
  Reply set("MEMORY_PARTITION: Successfully set memory partition to NPS4\n", "", 0, true);
  set.confirm = true;
  fake.on("set -g 0 --memory-partition NPS4", set);
  auto backend = amd_smi(fake);
  EXPECT_NO_THROW(backend->set_amd_partition(0, "CPX", "NPS4"));
  EXPECT_THAT(fake.calls(), ElementsAre(kReadGpu0, "set -g 0 --memory-partition NPS4", kReadGpu0));
}

TEST(AmdSmiBackend, ARefusedConfirmationIsExplained) {
  FakeTool fake;
  fake.on(kReadGpu0, {fixture("amd-smi-static-partition_gpu0_cpx-nps1.json")});
  fake.on("set -g 0 --memory-partition NPS4",
          {"******WARNING******\nDo you accept these terms? [Y/N] ", "Confirmation not given. Exiting without setting\n", 1});
  auto backend = amd_smi(fake);
  const BackendError e = error_of([&] { backend->set_amd_partition(0, "", "NPS4"); });
  EXPECT_EQ(e.code(), "exit 1");
  EXPECT_THAT(e.what(), HasSubstr("did not take the answer given on stdin"));
}

TEST(AmdSmiBackend, UnknownModesAreRefusedBeforeAnyCommand) {
  FakeTool fake;
  auto backend = amd_smi(fake);
  EXPECT_EQ(error_of([&] { backend->set_amd_partition(0, "XPX", ""); }).code(), "invalid-argument");
  EXPECT_EQ(error_of([&] { backend->set_amd_partition(0, "", "NPS3"); }).code(), "invalid-argument");
  EXPECT_EQ(error_of([&] { backend->set_amd_partition(-1, "CPX", ""); }).code(), "invalid-argument");
  EXPECT_TRUE(fake.calls().empty());
}

TEST(AmdSmiBackend, UnreadableOutputIsParseErrorNamingThePath) {
  FakeTool fake;
  fake.on("metric --json", {R"({"gpu_data": [{"gpu": 0, "power": {"socket_power": {"value": [1]}}}]})"});
  auto backend = amd_smi(fake);
  const BackendError e = error_of([&] { backend->metrics(); });
  EXPECT_EQ(e.code(), "parse");
  EXPECT_THAT(e.what(), HasSubstr("$.gpu_data[0].power.socket_power.value"));
}

TEST(AmdSmiBackend, NoMigAndNoXids) {
  FakeTool fake;
  auto backend = amd_smi(fake);
  EXPECT_EQ(error_of([&] { backend->set_mig_mode(0, true); }).code(), "not-supported");
  EXPECT_EQ(error_of([&] { backend->create_mig_instance(0, "1g.10gb", 0); }).code(), "not-supported");
  EXPECT_EQ(error_of([&] { backend->destroy_mig_instance(0, 1); }).code(), "not-supported");
  EXPECT_TRUE(backend->wait_xid_events(std::chrono::milliseconds(0)).empty());
  EXPECT_TRUE(fake.calls().empty());
}

TEST(AmdBackend, MissingToolIsNotFound) {
  AmdOptions options;
  options.amd_smi_path = "/nonexistent/amd-smi";
  auto backend = make_amd_backend(options);
  const BackendError e = error_of([&] { backend->inventory(); });
  EXPECT_EQ(e.code(), "not-found");
  EXPECT_THAT(e.what(), HasSubstr("`amd-smi static --json`: cannot start /nonexistent/amd-smi"));
}

TEST(AmdBackend, NoToolAtAllIsRefused) {
  EXPECT_EQ(error_of([] { make_amd_backend(AmdOptions{}); }).code(), "invalid-argument");
}

TEST(RocmSmiBackend, CommandsWhenAmdSmiIsAbsent) {
  FakeTool fake;
  const std::string inventory_args =
      "--showid --showproductname --showbus --showmeminfo vram --showuniqueid --showdriverversion "
      "--showcomputepartition --showmemorypartition --json";
  const std::string read_args = "-d 0 --showcomputepartition --showmemorypartition --json";
  fake.on(inventory_args, {fixture("rocm-smi_mi300x_rocm62.json")});
  const std::string metric_args =
      "--showtemp --showpower --showuse --showmeminfo vram --showclocks --showenergycounter --json";
  fake.on(metric_args, {fixture("rocm-smi-telemetry_mi300x_rocm62.json")});
  fake.on(read_args, {R"({"card0": {"Compute Partition": "SPX", "Memory Partition": "NPS1"}})", "", 0, false,
                      R"({"card0": {"Compute Partition": "CPX", "Memory Partition": "NPS1"}})"});
  fake.on("-d 0 --setcomputepartition CPX", {"GPU[0]\t\t: Successfully set compute partition to CPX\n"});
  fake.on("-d 0 --setmemorypartition NPS4", {"GPU[0]\t\t: Successfully set memory partition to NPS4\n", "", 0, true});
  AmdOptions options;
  options.rocm_smi_path = fake.install();
  auto backend = make_amd_backend(options);
  EXPECT_EQ(backend->inventory().gpus.size(), 2u);
  const auto metrics = backend->metrics();
  ASSERT_EQ(metrics.size(), 2u);
  EXPECT_EQ(metrics[0].sm_clock_mhz, 2100);
  EXPECT_EQ(error_of([&] { backend->processes(); }).code(), "not-supported");
  EXPECT_EQ(error_of([&] { backend->set_amd_partition(0, "CPX", "NPS4"); }).code(), "driver-reload-required");
  EXPECT_THAT(fake.calls(), ElementsAre(inventory_args, metric_args,
                                        read_args, "-d 0 --setcomputepartition CPX", "-d 0 --setmemorypartition NPS4",
                                        read_args));
}

}  // namespace
}  // namespace gpupool::backend
