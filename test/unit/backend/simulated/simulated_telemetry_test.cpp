// The simulated backend's metrics: the deterministic defaults, the world's
// `telemetry:` section (per GPU and per MIG instance), world files written
// before it existed, and malformed telemetry.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gpupool/backend/simulated_backend.h"

namespace gpupool::backend {
namespace {

namespace fs = std::filesystem;

class SimulatedTelemetryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A parameterized test's name has a '/': one directory, not two (TearDown removes dir_ only).
    std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(test.begin(), test.end(), '/', '_');
    dir_ = fs::temp_directory_path() / ("simtelemetry-" + std::to_string(::getpid()) + "-" + test);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A backend over the world `yaml` (its GPUs, else `gpus`).
  std::unique_ptr<SimulatedBackend> backend(const std::string& yaml, const std::string& gpus = "t4=1") {
    write_world(yaml);
    SimulatedOptions o;
    o.node_name = "node-t";
    o.gpus = parse_simulated_gpus(gpus, gpu::Catalog::builtin());
    o.config_path = (dir_ / "world.yaml").string();
    o.state_path = (dir_ / "state.json").string();
    return std::make_unique<SimulatedBackend>(o);
  }
  void write_world(const std::string& text) {
    std::ofstream(dir_ / "world.yaml") << text;
    fs::last_write_time(dir_ / "world.yaml", fs::file_time_type::clock::now() + std::chrono::seconds(++bumps_));
  }
  fs::path dir_;
  int bumps_ = 0;
};

TEST_F(SimulatedTelemetryTest, IdleAndBusyDefaults) {
  auto b = backend("gpus: [{model: h100-sxm5-80gb, count: 1}, {model: mi300x, count: 1}]\n");
  const auto idle = b->metrics();
  ASSERT_EQ(idle.size(), 2U);
  const GpuMetrics& h = idle[0];
  EXPECT_EQ(h.utilization_percent, 0.0);
  EXPECT_EQ(h.power_watts, 60.0);
  EXPECT_EQ(h.temperature_celsius, 38.0);
  EXPECT_EQ(h.memory_total_mib, 81559);
  EXPECT_EQ(h.memory_used_mib, 0);
  EXPECT_EQ(h.memory_free_mib, 81559);
  EXPECT_EQ(h.energy_millijoules, 0);
  EXPECT_EQ(h.sm_clock_mhz, 210);
  EXPECT_EQ(h.memory_clock_mhz, 1593);
  EXPECT_EQ(h.clock_event_reasons, std::vector<std::string>{"gpu_idle"});
  EXPECT_EQ(h.clock_event_reasons_mask, 0x1U);
  EXPECT_EQ(h.ecc_uncorrected_total, 0);
  EXPECT_TRUE(h.instances.empty());
  // AMD: amd-smi has no NVML reason mask to report.
  EXPECT_FALSE(idle[1].clock_event_reasons.has_value());
  EXPECT_FALSE(idle[1].clock_event_reasons_mask.has_value());
  EXPECT_EQ(idle[1].temperature_celsius, 39.0);

}

TEST_F(SimulatedTelemetryTest, AGpuHoldingAPodIsBusy) {
  auto b = backend("gpus: [{model: h100-sxm5-80gb, count: 1}]\n");
  b->set_gpu_pods({{"uid-busy", "team/train"}});  // one GPU: every pod runs on it
  const GpuMetrics busy = b->metrics()[0];
  EXPECT_EQ(busy.utilization_percent, 85.0);
  EXPECT_EQ(busy.power_watts, 250.0);
  EXPECT_EQ(busy.sm_clock_mhz, 1410);
  EXPECT_EQ(busy.memory_used_mib, 81559 / 2);
  EXPECT_EQ(busy.memory_free_mib, 81559 - 81559 / 2);
  EXPECT_EQ(busy.clock_event_reasons, std::vector<std::string>{});
  EXPECT_EQ(busy.clock_event_reasons_mask, 0U);
}

TEST_F(SimulatedTelemetryTest, WorldSetsAGpuAndAMigInstance) {
  auto b = backend("gpus: [{model: h100-sxm5-80gb, count: 1}]\n");
  ASSERT_EQ(b->set_mig_mode(0, true), MigModeChange::applied);
  const MigInstance big = b->create_mig_instance(0, "3g.40gb", 4);
  const MigInstance small = b->create_mig_instance(0, "1g.10gb", 0);
  write_world("gpus: [{model: h100-sxm5-80gb, count: 1}]\n"
              "telemetry:\n"
              "  0:\n"
              "    utilizationPercent: 42\n"
              "    energyMillijoules: 987654321\n"
              "    smClockMHz: 1755\n"
              "    clockEventReasons: [hw_slowdown, sw_power_cap]\n"
              "    instances:\n"
              "      " + std::to_string(big.gpu_instance_id) +
              ": {utilizationPercent: 17, graphicsEngineActive: 0.2, dramActive: 0.05, memoryUsedMiB: 512}\n");
  const GpuMetrics m = b->metrics()[0];
  EXPECT_EQ(m.utilization_percent, 42.0);  // set: reported even in MIG mode
  EXPECT_EQ(m.energy_millijoules, 987654321);
  EXPECT_EQ(m.sm_clock_mhz, 1755);
  EXPECT_EQ(m.clock_event_reasons, (std::vector<std::string>{"sw_power_cap", "hw_slowdown"}));  // NVML's order
  EXPECT_EQ(m.clock_event_reasons_mask, 0xCU);
  ASSERT_EQ(m.instances.size(), 2U);
  const InstanceMetrics& set = m.instances[0].gpu_instance_id == big.gpu_instance_id ? m.instances[0] : m.instances[1];
  const InstanceMetrics& other = &set == &m.instances[0] ? m.instances[1] : m.instances[0];
  EXPECT_LT(m.instances[0].gpu_instance_id, m.instances[1].gpu_instance_id);
  EXPECT_EQ(set.utilization_percent, 17.0);
  EXPECT_EQ(set.graphics_engine_active, 0.2);
  EXPECT_EQ(set.dram_active, 0.05);
  EXPECT_EQ(set.memory_total_mib, 40448);
  EXPECT_EQ(set.memory_used_mib, 512);
  EXPECT_EQ(set.memory_free_mib, 40448 - 512);
  EXPECT_EQ(other.gpu_instance_id, small.gpu_instance_id);
  EXPECT_EQ(other.utilization_percent, 0.0);  // Hopper: GPM reports the idle instance
  EXPECT_EQ(other.memory_total_mib, 9984);
  EXPECT_EQ(other.memory_free_mib, 9984);
}

TEST_F(SimulatedTelemetryTest, MigBeforeHopperHasNoInstanceActivityNorGpuUtilisation) {
  auto b = backend("gpus: [{model: a100-sxm4-80gb, count: 1}]\n");
  ASSERT_EQ(b->set_mig_mode(0, true), MigModeChange::applied);
  const MigInstance mig = b->create_mig_instance(0, "3g.40gb", 0);
  const GpuMetrics m = b->metrics()[0];
  EXPECT_FALSE(m.utilization_percent.has_value());  // as NVML in MIG mode
  ASSERT_EQ(m.instances.size(), 1U);
  EXPECT_EQ(m.instances[0].gpu_instance_id, mig.gpu_instance_id);
  EXPECT_FALSE(m.instances[0].utilization_percent.has_value());
  EXPECT_FALSE(m.instances[0].dram_active.has_value());
  EXPECT_EQ(m.instances[0].memory_total_mib, mig.memory_mib);
}

TEST_F(SimulatedTelemetryTest, WorldFilesWithoutTelemetryStillWork) {
  auto b = backend("driverVersion: \"550.54.15\"\ngpus: [{model: a100-sxm4-80gb, count: 2}]\n"
                   "temperatureCelsius: {1: 95}\neccUncorrected: {1: 2}\neccCorrected: {0: 7}\n");
  const auto m = b->metrics();
  ASSERT_EQ(m.size(), 2U);
  EXPECT_EQ(m[0].temperature_celsius, 38.0);
  EXPECT_EQ(m[1].temperature_celsius, 95.0);
  EXPECT_EQ(m[1].ecc_uncorrected_total, 2);
  EXPECT_EQ(m[0].ecc_corrected_total, 7);
  EXPECT_EQ(m[0].utilization_percent, 0.0);
  // telemetry wins over the older top-level maps
  write_world("gpus: [{model: a100-sxm4-80gb, count: 2}]\ntemperatureCelsius: {1: 95}\n"
              "telemetry: {1: {temperatureCelsius: 70, eccUncorrected: 1}}\n");
  EXPECT_EQ(b->metrics()[1].temperature_celsius, 70.0);
  EXPECT_EQ(b->metrics()[1].ecc_uncorrected_total, 1);
}

struct BadTelemetry {
  const char* name;
  const char* telemetry;  // the `telemetry:` value
  const char* message;    // part of the error message
};

class SimulatedBadTelemetryTest : public SimulatedTelemetryTest,
                                  public ::testing::WithParamInterface<BadTelemetry> {};

TEST_P(SimulatedBadTelemetryTest, IsRefusedNamingThePlace) {
  const BadTelemetry& c = GetParam();
  try {
    backend(std::string("gpus: [{model: h100-sxm5-80gb, count: 1}]\ntelemetry: ") + c.telemetry + "\n")->metrics();
    FAIL() << "accepted " << c.telemetry;
  } catch (const BackendError& e) {
    EXPECT_EQ(e.code(), "invalid-config");
    EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, SimulatedBadTelemetryTest,
    ::testing::Values(
        BadTelemetry{"NotAMap", "[1, 2]", "telemetry: expected a map"},
        BadTelemetry{"UnknownField", "{0: {utilisation: 4}}", "telemetry.0: unknown field \"utilisation\""},
        BadTelemetry{"UtilisationOver100", "{0: {utilizationPercent: 101}}", "telemetry.0.utilizationPercent: must be 0..100"},
        BadTelemetry{"NotANumber", "{0: {powerWatts: lots}}", "telemetry.0.powerWatts: not a valid value"},
        BadTelemetry{"NegativeMemory", "{0: {memoryUsedMiB: -1}}", "telemetry.0.memoryUsedMiB: must not be negative"},
        BadTelemetry{"MoreMemoryThanTheGpu", "{0: {memoryUsedMiB: 90000}}", "more than the GPU's 81559 MiB"},
        BadTelemetry{"UnknownReason", "{0: {clockEventReasons: [too_hot]}}", "unknown clock event reason \"too_hot\""},
        BadTelemetry{"ReasonsNotAList", "{0: {clockEventReasons: gpu_idle}}", "expected a list of reason names"},
        BadTelemetry{"FractionOver1", "{0: {instances: {1: {dramActive: 1.5}}}}", "telemetry.0.instances.1.dramActive: must be 0..1"},
        BadTelemetry{"UnknownInstanceField", "{0: {instances: {1: {power: 3}}}}", "telemetry.0.instances.1: unknown field \"power\""}),
    [](const ::testing::TestParamInfo<BadTelemetry>& p) { return std::string(p.param.name); });

}  // namespace
}  // namespace gpupool::backend
