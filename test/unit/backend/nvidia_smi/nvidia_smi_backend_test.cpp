// The nvidia-smi backend against a fake nvidia-smi (fake_nvidia_smi.h): the
// exact commands each call runs, what it makes of their output, and how
// failures become BackendError.
#include <gtest/gtest.h>

#include <chrono>

#include "fake_nvidia_smi.h"
#include "gpupool/backend/nvidia_smi_backend.h"
#include "gpupool/backend/nvidia_smi_parse.h"
#include "nvsmi_fixtures.h"

namespace gpupool::backend {
namespace {

using nvsmi::testing::FakeNvidiaSmi;
using nvsmi::testing::fixture;

const std::string kQuery = "--query-gpu=" + std::string(nvsmi::kQueryGpuFields) + " --format=csv,noheader,nounits";
const std::string kQueryBeforeR535 =
    "--query-gpu=" + std::string(nvsmi::kQueryGpuFieldsBeforeR535) + " --format=csv,noheader,nounits";
const std::string kRow0 =
    "0, GPU-1, NVIDIA A100-SXM4-80GB, 00000000:07:00.0, 81920, 550.127.08, Enabled, Enabled, 38, 121.40, [N/A], 38030, 0, 0\n";
const std::string kMigXml = "q-x_2x-a100-sxm4-80gb_mig_v12.xml";

std::unique_ptr<GpuBackend> backend_for(FakeNvidiaSmi& fake, std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  NvidiaSmiOptions options;
  options.nvidia_smi_path = fake.install();
  options.timeout = timeout;
  return make_nvidia_smi_backend(options);
}

// The three outputs a device check captured on one real machine (`gpu`:
// the fixtures' infix, e.g. "h200"), as `fake` answers them.
void respond_with_capture(FakeNvidiaSmi& fake, const std::string& xml, const std::string& gpu) {
  fake.respond("-q -x", fixture(xml));
  fake.respond("topo -m", fixture("topo-m_1x-" + gpu + "_ansi.txt"));
  fake.respond(kQuery, fixture("query-gpu-telemetry_" + gpu + "_r580_noheader-nounits.csv"));
}

// Runs `f`, which must throw BackendError; returns it.
template <class F>
BackendError error_of(F f) {
  try {
    f();
  } catch (const BackendError& e) {
    return e;
  }
  ADD_FAILURE() << "no BackendError";
  return BackendError("", "");
}

void respond_mig_inventory(FakeNvidiaSmi& fake, const std::string& lgi) {
  fake.respond("-q -x", fixture(kMigXml));
  fake.respond("mig -lgi", lgi);
  fake.respond("mig -lci", fixture("mig-lci_a100-sxm4-80gb.txt"));
  fake.respond("-L", fixture("L_2x-a100-sxm4-80gb_mig.txt"));
  fake.respond("topo -m", fixture("topo-m_2x-a100-nvlink.txt"));
}

TEST(NvidiaSmiBackend, Name) {
  FakeNvidiaSmi fake;
  EXPECT_EQ(backend_for(fake)->name(), "nvidia-smi");
}

TEST(NvidiaSmiBackend, InventoryOfAMigBox) {
  FakeNvidiaSmi fake;
  respond_mig_inventory(fake, fixture("mig-lgi_a100-sxm4-80gb.txt"));
  const Inventory inv = backend_for(fake)->inventory();
  EXPECT_EQ(fake.calls(), (std::vector<std::string>{"-q -x", "mig -lgi", "mig -lci", "-L", "topo -m"}));
  EXPECT_EQ(inv.driver_version, "550.127.08");
  EXPECT_EQ(inv.cuda_version, "12.4");
  ASSERT_EQ(inv.gpus.size(), 2u);
  const std::vector<MigInstance> expected{
      {"2g.20gb", 14, 0, 2, 5, 0, "MIG-11111111-2222-5333-8444-555555555505", 19968},
      {"1g.10gb", 19, 2, 1, 13, 0, "MIG-11111111-2222-5333-8444-555555555513", 9728},
      {"3g.40gb", 9, 4, 4, 1, 0, "MIG-11111111-2222-5333-8444-555555555501", 40192}};
  EXPECT_EQ(inv.gpus[0].instances, expected);
  EXPECT_EQ(inv.gpus[1].mig, (MigModeState{MigMode::disabled, MigMode::enabled}));
  EXPECT_EQ(inv.links, (std::vector<GpuLink>{{0, 1, LinkKind::nvlink, 12}}));
}

TEST(NvidiaSmiBackend, InventoryWithoutMigRunsNoMigCommandsAndToleratesTopoFailure) {
  FakeNvidiaSmi fake;
  fake.respond("-q -x", fixture("q-x_tesla-t4_v11.xml"));
  fake.respond("topo -m", "", 3, "Topology is not supported in this configuration");
  const Inventory inv = backend_for(fake)->inventory();
  EXPECT_EQ(fake.calls(), (std::vector<std::string>{"-q -x", "topo -m"}));
  ASSERT_EQ(inv.gpus.size(), 1u);
  EXPECT_EQ(inv.gpus[0].catalog_id, "t4-16gb");
  EXPECT_FALSE(inv.gpus[0].mig_capable);
  EXPECT_TRUE(inv.links.empty());
}

TEST(NvidiaSmiBackend, InventoryWhenNoInstancesExist) {
  FakeNvidiaSmi fake;
  fake.respond("-q -x", fixture("q-x_2x-a100-sxm4-80gb_mig_v12.xml"));
  fake.respond("mig -lgi", fixture("mig-lgi_none.txt"), 6);
  fake.respond("mig -lci", "No compute instances found: Not Found\n", 6);
  fake.respond("-L", fixture("L_2x-a100-sxm4-80gb_mig.txt"));
  fake.respond("topo -m", fixture("topo-m_2x-a100-nvlink.txt"));
  EXPECT_NO_THROW(backend_for(fake)->inventory());
  EXPECT_EQ(fake.calls().size(), 5u);
}

TEST(NvidiaSmiBackend, Metrics) {
  FakeNvidiaSmi fake;
  fake.respond(kQuery, fixture("query-gpu-telemetry_2x-a100_noheader-nounits.csv"));
  fake.respond("-q -x", fixture(kMigXml));  // GPU 0 has MIG on: its instances' memory
  const auto metrics = backend_for(fake)->metrics();
  EXPECT_EQ(fake.calls(), (std::vector<std::string>{kQuery, "-q -x"}));
  ASSERT_EQ(metrics.size(), 2u);
  EXPECT_EQ(metrics[0].index, 0);
  EXPECT_EQ(metrics[0].power_watts, 121.40);
  EXPECT_FALSE(metrics[0].utilization_percent.has_value());
  EXPECT_EQ(metrics[0].memory_free_mib, 43020);
  EXPECT_EQ(metrics[0].memory_total_mib, 81920);
  ASSERT_EQ(metrics[0].instances.size(), 3u);
  EXPECT_EQ(metrics[0].instances[0].gpu_instance_id, 1);
  EXPECT_EQ(metrics[0].instances[0].memory_used_mib, 38012);
  EXPECT_EQ(metrics[1].index, 1);
  EXPECT_EQ(metrics[1].memory_used_mib, 1215);
  EXPECT_EQ(metrics[1].ecc_corrected_total, 3);
  EXPECT_EQ(metrics[1].sm_clock_mhz, 705);
  EXPECT_EQ(metrics[1].clock_event_reasons_mask, 0x45u);
  EXPECT_TRUE(metrics[1].instances.empty());
}

// Captured on an H200 (driver 580.159.04, DTD v13) during the NVML backend's
// first run on a real GPU; identifiers replaced. On that machine the NVML
// backend reported the same GPU, driver, CUDA version and memory.
TEST(NvidiaSmiBackend, AnH200OnR580AsCapturedOnARealMachine) {
  FakeNvidiaSmi fake;
  respond_with_capture(fake, "q-x_h200_r580_v13.xml", "h200");
  auto backend = backend_for(fake);
  const Inventory inv = backend->inventory();
  EXPECT_EQ(inv.driver_version, "580.159.04");
  EXPECT_EQ(inv.cuda_version, "13.0");
  ASSERT_EQ(inv.gpus.size(), 1u);
  const GpuInfo& g = inv.gpus[0];
  EXPECT_EQ(g.name, "NVIDIA H200");
  EXPECT_EQ(g.catalog_id, "h200-141gb");
  EXPECT_EQ(g.uuid, "GPU-7e3a5c10-4b2d-4f61-9a8e-1c0d2b3e4f50");
  EXPECT_EQ(g.pci_bus_id, "00000000:00:06.0");
  EXPECT_EQ(g.memory_mib, 143771);
  EXPECT_TRUE(g.mig_capable);
  EXPECT_EQ(g.mig, (MigModeState{MigMode::disabled, MigMode::disabled}));
  EXPECT_TRUE(g.instances.empty());
  EXPECT_TRUE(inv.links.empty()) << "one GPU: no pairs";

  const auto metrics = backend->metrics();
  ASSERT_EQ(metrics.size(), 1u);
  const GpuMetrics& m = metrics[0];
  EXPECT_EQ(m.temperature_celsius, 36.0);
  EXPECT_EQ(m.power_watts, 77.36);
  EXPECT_EQ(m.utilization_percent, 0.0);
  EXPECT_EQ(m.memory_used_mib, 0) << "the 616 MiB the driver reserves are not used memory";
  EXPECT_EQ(m.memory_free_mib, 143156);
  EXPECT_EQ(m.memory_total_mib, 143771);
  EXPECT_EQ(m.sm_clock_mhz, 345);
  EXPECT_EQ(m.memory_clock_mhz, 3201);
  EXPECT_EQ(m.ecc_corrected_total, 0);
  EXPECT_EQ(m.clock_event_reasons, std::vector<std::string>{"gpu_idle"});
  EXPECT_FALSE(m.energy_millijoules.has_value()) << "nvidia-smi has no energy field";
}

TEST(NvidiaSmiBackend, AnH100OnR580AsCapturedOnARealMachine) {
  FakeNvidiaSmi fake;
  respond_with_capture(fake, "q-x_h100-sxm5_r580_v13.xml", "h100");
  auto backend = backend_for(fake);
  const Inventory inv = backend->inventory();
  EXPECT_EQ(inv.driver_version, "580.159.04");
  ASSERT_EQ(inv.gpus.size(), 1u);
  const GpuInfo& g = inv.gpus[0];
  EXPECT_EQ(g.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(g.catalog_id, "h100-sxm5-80gb");
  EXPECT_EQ(g.uuid, "GPU-3d9b6f2a-81c4-4e07-b5d2-6a0f1e2c3b41");
  EXPECT_EQ(g.memory_mib, 81559);
  EXPECT_TRUE(g.mig_capable);
  EXPECT_EQ(g.mig, (MigModeState{MigMode::disabled, MigMode::disabled}));

  const auto metrics = backend->metrics();
  ASSERT_EQ(metrics.size(), 1u);
  EXPECT_EQ(metrics[0].memory_used_mib, 0) << "the 480 MiB the driver reserves are not used memory";
  EXPECT_EQ(metrics[0].memory_free_mib, 81079);
  EXPECT_EQ(metrics[0].power_watts, 71.48);
  EXPECT_EQ(metrics[0].clock_event_reasons, std::vector<std::string>{"gpu_idle"});
}

// The same H100 under a load (a PyTorch process holding 7 GiB and running
// bf16 matrix products): its process, as NVML reported it in the same run.
TEST(NvidiaSmiBackend, AnH100UnderALoadAsCapturedOnARealMachine) {
  FakeNvidiaSmi fake;
  fake.respond("-q -x", fixture("q-x_h100-sxm5_r580_v13_load.xml"));
  auto backend = backend_for(fake);
  EXPECT_EQ(backend->processes(), (std::vector<GpuProcess>{{0, -1, 472, 7146, ""}}));
  const Inventory inv = backend->inventory();
  ASSERT_EQ(inv.gpus.size(), 1u);
  EXPECT_EQ(inv.gpus[0].memory_mib, 81559);
  EXPECT_EQ(inv.gpus[0].mig, (MigModeState{MigMode::disabled, MigMode::disabled}));
}

TEST(NvidiaSmiBackend, MetricsWithoutMigNeedNoXml) {
  FakeNvidiaSmi fake;
  fake.respond(kQuery, "0, GPU-1, Tesla T4, 00000000:00:1E.0, 15360, 535.1, [N/A], [N/A], 31, 27.38, 4, 1033, 0, 0, "
                       "14000, 585, 5000, 0x0000000000000000\n");
  const auto metrics = backend_for(fake)->metrics();
  EXPECT_EQ(fake.calls(), (std::vector<std::string>{kQuery}));
  ASSERT_EQ(metrics.size(), 1u);
  EXPECT_EQ(metrics[0].memory_clock_mhz, 5000);
  EXPECT_EQ(metrics[0].clock_event_reasons, std::vector<std::string>{});
}

TEST(NvidiaSmiBackend, MetricsOfADriverBeforeR535) {
  FakeNvidiaSmi fake;
  fake.respond(kQuery, "Field \"clocks_event_reasons.active\" is not a valid field to query.\n\n", 2);
  fake.respond(kQueryBeforeR535, "0, GPU-1, NVIDIA L4, 00000000:3B:00.0, 23034, 525.105.17, [N/A], [N/A], 45, 27.71, 0, "
                                 "0, 0, 0, 22478, 210, 405, 0x0000000000000001\n");
  auto backend = backend_for(fake);
  EXPECT_EQ(backend->metrics()[0].clock_event_reasons, std::vector<std::string>{"gpu_idle"});
  EXPECT_EQ(backend->metrics()[0].sm_clock_mhz, 210);
  // The older list is asked for first from then on.
  EXPECT_EQ(fake.calls(), (std::vector<std::string>{kQuery, kQueryBeforeR535, kQueryBeforeR535}));
}

TEST(NvidiaSmiBackend, MetricsFailureOfBothFieldListsIsReported) {
  FakeNvidiaSmi fake;
  fake.respond(kQuery, "Field \"clocks.sm\" is not a valid field to query.\n", 2);
  fake.respond(kQueryBeforeR535, "Field \"clocks.sm\" is not a valid field to query.\n", 2);
  const BackendError e = error_of([&] { backend_for(fake)->metrics(); });
  EXPECT_EQ(e.code(), "exit 2");
  EXPECT_NE(std::string(e.what()).find("clocks.sm"), std::string::npos) << e.what();
  EXPECT_EQ(fake.calls().size(), 2u);
}

TEST(NvidiaSmiBackend, Processes) {
  FakeNvidiaSmi fake;
  fake.respond("-q -x", fixture(kMigXml));
  const auto processes = backend_for(fake)->processes();
  EXPECT_EQ(fake.calls(), (std::vector<std::string>{"-q -x"}));
  EXPECT_EQ(processes, (std::vector<GpuProcess>{{0, 1, 4242, 37990, ""}, {1, -1, 5151, 1200, ""}}));
}

TEST(NvidiaSmiBackend, SetMigModeApplied) {
  FakeNvidiaSmi fake;
  fake.respond("-i 1 -mig 1", fixture("mig-mode_enabled.txt"));
  fake.respond("-i 0 -mig 0", "Disabled MIG Mode for GPU 00000000:07:00.0\nAll done.\n");
  auto backend = backend_for(fake);
  EXPECT_EQ(backend->set_mig_mode(1, true), MigModeChange::applied);
  EXPECT_EQ(backend->set_mig_mode(0, false), MigModeChange::applied);
  EXPECT_EQ(fake.calls(), (std::vector<std::string>{"-i 1 -mig 1", "-i 0 -mig 0"}));
}

TEST(NvidiaSmiBackend, SetMigModePendingResetIsResetRequired) {
  FakeNvidiaSmi fake;
  fake.respond("-i 1 -mig 1", fixture("mig-mode_pending-in-use.txt"));
  // Older drivers: a non-zero exit and the reset advice on stderr.
  fake.respond("-i 2 -mig 1", "", 6,
               "Warning: MIG mode is in pending enable state for GPU 00000000:17:00.0:Not Supported\n"
               "Reboot the system or try nvidia-smi --gpu-reset to make MIG mode effective on GPU 00000000:17:00.0\n");
  auto backend = backend_for(fake);
  EXPECT_EQ(backend->set_mig_mode(1, true), MigModeChange::reset_required);
  EXPECT_EQ(backend->set_mig_mode(2, true), MigModeChange::reset_required);
}

TEST(NvidiaSmiBackend, FailingCommandIsExitN) {
  FakeNvidiaSmi fake;
  fake.respond("-i 3 -mig 1", "", 4, "Unable to enable MIG Mode for GPU 00000000:19:00.0: Insufficient Permissions\n");
  const BackendError e = error_of([&] { backend_for(fake)->set_mig_mode(3, true); });
  EXPECT_EQ(e.code(), "exit 4");
  EXPECT_NE(std::string(e.what()).find("nvidia-smi -i 3 -mig 1"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("Insufficient Permissions"), std::string::npos) << e.what();
}

TEST(NvidiaSmiBackend, CreateMigInstance) {
  FakeNvidiaSmi fake;
  fake.respond(kQuery + " -i 0", kRow0);
  fake.respond("mig -i 0 -cgi 19:6 -C", fixture("mig-cgi_a100-sxm4-80gb.txt"));
  respond_mig_inventory(fake, fixture("mig-lgi_a100-sxm4-80gb.txt") +
                                  "|   0  MIG 1g.10gb         19        6          6:1     |\n"
                                  "+-------------------------------------------------------+\n");
  const MigInstance made = backend_for(fake)->create_mig_instance(0, "1g.10gb", 6);
  EXPECT_EQ(fake.calls(), (std::vector<std::string>{kQuery + " -i 0", "mig -i 0 -cgi 19:6 -C", "-q -x", "mig -lgi",
                                                    "mig -lci", "-L", "topo -m"}));
  EXPECT_EQ(made, (MigInstance{"1g.10gb", 19, 6, 1, 6, -1, "", 0}));  // read back: no compute instance in -lci yet
}

TEST(NvidiaSmiBackend, CreateRefusesWhatTheModelDoesNotAllowBeforeRunningAnything) {
  FakeNvidiaSmi fake;
  fake.respond(kQuery + " -i 0", kRow0);
  fake.respond(kQuery + " -i 1", "1, GPU-2, Tesla T4, 00000000:08:00.0, 15360, 550.127.08, [N/A], [N/A], 30, 20, 0, 0, 0, 0\n");
  auto backend = backend_for(fake);
  const BackendError placement = error_of([&] { backend->create_mig_instance(0, "3g.40gb", 2); });
  EXPECT_EQ(placement.code(), "NVML_ERROR_INVALID_ARGUMENT");
  EXPECT_NE(std::string(placement.what()).find("only at 0,4"), std::string::npos) << placement.what();
  EXPECT_EQ(error_of([&] { backend->create_mig_instance(0, "1g.6gb", 0); }).code(), "NVML_ERROR_INVALID_ARGUMENT");
  EXPECT_EQ(error_of([&] { backend->create_mig_instance(1, "1g.10gb", 0); }).code(), "NVML_ERROR_NOT_SUPPORTED");
  EXPECT_EQ(fake.calls(), (std::vector<std::string>{kQuery + " -i 0", kQuery + " -i 0", kQuery + " -i 1"}));
}

TEST(NvidiaSmiBackend, CreateFailureIsExitN) {
  FakeNvidiaSmi fake;
  fake.respond(kQuery + " -i 0", kRow0);
  fake.respond("mig -i 0 -cgi 9:4 -C",
               "Unable to create a GPU instance on GPU  0 using profile 9: Insufficient Resources\nFailed to create GPU instances: Insufficient Resources\n",
               2);
  const BackendError e = error_of([&] { backend_for(fake)->create_mig_instance(0, "3g.40gb", 4); });
  EXPECT_EQ(e.code(), "exit 2");
  EXPECT_NE(std::string(e.what()).find("Insufficient Resources"), std::string::npos) << e.what();
}

TEST(NvidiaSmiBackend, DestroyComputeThenGpuInstance) {
  FakeNvidiaSmi fake;
  fake.respond("mig -i 0 -gi 5 -dci", "Successfully destroyed compute instance ID  0 from GPU  0 GPU instance ID  5\n");
  fake.respond("mig -i 0 -gi 5 -dgi", "Successfully destroyed GPU instance ID  5 from GPU  0\n");
  // No compute instance: -dci answers Not Found, -dgi still runs.
  fake.respond("mig -i 0 -gi 6 -dci", "", 6, "No compute instances found: Not Found\n");
  fake.respond("mig -i 0 -gi 6 -dgi", "Successfully destroyed GPU instance ID  6 from GPU  0\n");
  auto backend = backend_for(fake);
  backend->destroy_mig_instance(0, 5);
  backend->destroy_mig_instance(0, 6);
  EXPECT_EQ(fake.calls(), (std::vector<std::string>{"mig -i 0 -gi 5 -dci", "mig -i 0 -gi 5 -dgi", "mig -i 0 -gi 6 -dci",
                                                    "mig -i 0 -gi 6 -dgi"}));
}

TEST(NvidiaSmiBackend, DestroyFailure) {
  FakeNvidiaSmi fake;
  fake.respond("mig -i 0 -gi 1 -dci", "", 18, "Unable to destroy compute instance ID 0: In use by another client\n");
  const BackendError e = error_of([&] { backend_for(fake)->destroy_mig_instance(0, 1); });
  EXPECT_EQ(e.code(), "exit 18");
  EXPECT_NE(std::string(e.what()).find("nvidia-smi mig -i 0 -gi 1 -dci"), std::string::npos) << e.what();
  EXPECT_EQ(fake.calls(), (std::vector<std::string>{"mig -i 0 -gi 1 -dci"}));
}

TEST(NvidiaSmiBackend, AmdPartitionIsNotSupported) {
  FakeNvidiaSmi fake;
  EXPECT_EQ(error_of([&] { backend_for(fake)->set_amd_partition(0, "CPX", ""); }).code(), "not-supported");
  EXPECT_TRUE(fake.calls().empty());
}

TEST(NvidiaSmiBackend, WaitXidEventsWaitsOutTheTimeoutAndReturnsNone) {
  FakeNvidiaSmi fake;
  auto backend = backend_for(fake);
  EXPECT_TRUE(backend->wait_xid_events(std::chrono::milliseconds(0)).empty());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(backend->wait_xid_events(std::chrono::milliseconds(30)).empty());
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(30));
  EXPECT_TRUE(fake.calls().empty());
}

TEST(NvidiaSmiBackend, OutputThatDoesNotParseIsParseError) {
  FakeNvidiaSmi fake;
  fake.respond("-q -x", "<nvidia_smi_log><gpu><fb_memory_usage><total>x</total></fb_memory_usage></gpu></nvidia_smi_log>");
  const BackendError e = error_of([&] { backend_for(fake)->inventory(); });
  EXPECT_EQ(e.code(), "parse");
  EXPECT_NE(std::string(e.what()).find("/nvidia_smi_log/gpu[1]/fb_memory_usage/total"), std::string::npos) << e.what();
}

TEST(NvidiaSmiBackend, MissingExecutableIsNotFound) {
  NvidiaSmiOptions options;
  options.nvidia_smi_path = "/nonexistent/nvidia-smi";
  EXPECT_EQ(error_of([&] { make_nvidia_smi_backend(options)->metrics(); }).code(), "not-found");
}

TEST(NvidiaSmiBackend, HangingCommandTimesOut) {
  FakeNvidiaSmi fake;
  fake.respond_with_shell("-q -x", "exec sleep 30");
  auto backend = backend_for(fake, std::chrono::milliseconds(200));
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(error_of([&] { backend->processes(); }).code(), "timeout");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

}  // namespace
}  // namespace gpupool::backend
