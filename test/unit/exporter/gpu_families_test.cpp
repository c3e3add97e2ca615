// The agent's GPU families from a sample built by hand: vendor-neutral series
// for every GPU and MIG instance, dcgm-exporter's names where it emits them
// (both namings), AMD's names, attribution labels, nothing for unknown
// values, and `promtool check metrics` clean.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "gpupool/exporter/gpu_families.h"
#include "gpupool/metrics/exposition.h"
#include "support/gpu_sample.h"
#include "support/promtool.h"

namespace gpupool::exporter {
namespace {

using metrics::FamilySnapshot;

GpuSample nvidia_sample() { return test::two_a100_sample(); }

const FamilySnapshot* family(const std::vector<FamilySnapshot>& fs, const std::string& name) {
  for (const auto& f : fs) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

// The value of the one series of `name` whose labels include all of `match`.
std::optional<double> value(const std::vector<FamilySnapshot>& fs, const std::string& name,
                            const std::map<std::string, std::string>& match) {
  const FamilySnapshot* f = family(fs, name);
  if (!f) return std::nullopt;
  std::optional<double> found;
  for (const auto& c : f->children) {
    bool all = true;
    for (const auto& [k, v] : match) {
      bool hit = false;
      for (std::size_t i = 0; i < f->label_names.size(); ++i) hit = hit || (f->label_names[i] == k && c.label_values[i] == v);
      all = all && hit;
    }
    if (all) {
      EXPECT_FALSE(found) << name << ": more than one series matches";
      found = c.value;
    }
  }
  return found;
}

TEST(GpuFamilies, NeutralSeriesForEveryGpuAndMigInstanceWithTheirUsers) {
  const auto fs = gpu_families(nvidia_sample());
  EXPECT_EQ(value(fs, "gpupool_gpu_utilization_ratio", {{"gpu", "0"}, {"gpu_instance_id", ""}, {"pod", "p0"},
                                                        {"namespace", "train"}, {"container", "main"}, {"tenant", "team-a"}}),
            0.42);
  EXPECT_EQ(value(fs, "gpupool_gpu_utilization_ratio",
                  {{"gpu", "1"}, {"gpu_instance_id", "1"}, {"mig_profile", "3g.40gb"}, {"pod", "p1"}, {"tenant", "infer"}}),
            0.17);
  EXPECT_FALSE(value(fs, "gpupool_gpu_utilization_ratio", {{"gpu", "1"}, {"gpu_instance_id", ""}})) << "unknown: no series";
  EXPECT_FALSE(value(fs, "gpupool_gpu_utilization_ratio", {{"gpu_instance_id", "2"}})) << "unknown: no series";
  EXPECT_EQ(value(fs, "gpupool_gpu_graphics_engine_active_ratio", {{"gpu_instance_id", "2"}, {"pod", ""}}), 0.0);
  EXPECT_EQ(value(fs, "gpupool_gpu_memory_used_bytes", {{"gpu", "0"}}), 1024.0 * 1024 * 1024);
  EXPECT_EQ(value(fs, "gpupool_gpu_memory_used_bytes", {{"gpu_instance_id", "1"}}), 2048.0 * 1024 * 1024);
  EXPECT_EQ(value(fs, "gpupool_gpu_energy_joules_total", {{"gpu", "0"}}), 123456.0);
  EXPECT_EQ(value(fs, "gpupool_gpu_sm_clock_hertz", {{"gpu", "0"}}), 1410e6);
  EXPECT_EQ(value(fs, "gpupool_gpu_ecc_errors_total", {{"gpu", "0"}, {"type", "corrected"}}), 3.0);
  EXPECT_EQ(value(fs, "gpupool_gpu_xid_errors_total", {{"gpu", "0"}, {"xid", "79"}}), 2.0);
  EXPECT_EQ(value(fs, "gpupool_gpu_clock_event_reason", {{"gpu", "0"}, {"reason", "sw_power_cap"}}), 1.0);
  EXPECT_EQ(value(fs, "gpupool_gpu_clock_event_reason", {{"gpu", "0"}, {"reason", "hw_slowdown"}}), 0.0);
  EXPECT_EQ(value(fs, "gpupool_gpu_health", {{"gpu", "0"}, {"state", "Unhealthy"}}), 1.0);
  EXPECT_EQ(value(fs, "gpupool_gpu_health", {{"gpu", "0"}, {"state", "Healthy"}}), 0.0);
  EXPECT_EQ(value(fs, "gpupool_gpu_partition_info", {{"gpu", "1"}, {"gpu_instance_id", "2"}, {"mig_profile", "1g.10gb"}}), 1.0);
  EXPECT_EQ(value(fs, "gpupool_gpu_info", {{"gpu", "1"}, {"driver_version", "550.54.15"}}), 1.0);
  EXPECT_EQ(family(fs, "gpupool_gpu_energy_joules_total")->kind, metrics::MetricKind::Counter);
}

TEST(GpuFamilies, DcgmExporterNamesWhereDcgmExporterEmitsThem) {
  const auto fs = gpu_families(nvidia_sample());
  // Whole GPU, not in MIG mode: the device fields, with dcgm-exporter's labels.
  EXPECT_EQ(value(fs, "DCGM_FI_DEV_GPU_UTIL", {{"gpu", "0"}, {"UUID", "GPU-0000"}, {"modelName", "NVIDIA A100-SXM4-80GB"},
                                               {"Hostname", "node-a"}, {"device", "nvidia0"}, {"pci_bus_id", "00000000:07:00.0"},
                                               {"pod", "p0"}, {"namespace", "train"}, {"container", "main"},
                                               {"DCGM_FI_DRIVER_VERSION", "550.54.15"}}),
            42.0);
  EXPECT_EQ(value(fs, "DCGM_FI_DEV_FB_USED", {{"gpu", "0"}, {"GPU_I_ID", ""}}), 1024.0);
  EXPECT_EQ(value(fs, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", {{"gpu", "0"}}), 123456000.0);
  EXPECT_EQ(value(fs, "DCGM_FI_DEV_XID_ERRORS", {{"gpu", "0"}}), 79.0);
  EXPECT_EQ(value(fs, "DCGM_FI_DEV_XID_ERRORS", {{"gpu", "1"}}), 0.0);
  EXPECT_EQ(value(fs, "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", {{"gpu", "0"}}), 4.0);
  // In MIG mode: no GPU utilisation; physical fields on the GPU; per instance the profiling fields and memory.
  EXPECT_FALSE(value(fs, "DCGM_FI_DEV_GPU_UTIL", {{"gpu", "1"}}));
  EXPECT_EQ(value(fs, "DCGM_FI_DEV_GPU_TEMP", {{"gpu", "1"}, {"GPU_I_ID", ""}}), 55.0);
  EXPECT_EQ(value(fs, "DCGM_FI_PROF_GR_ENGINE_ACTIVE",
                  {{"gpu", "1"}, {"UUID", "GPU-1111"}, {"GPU_I_PROFILE", "3g.40gb"}, {"GPU_I_ID", "1"}, {"pod", "p1"}}),
            0.25);
  EXPECT_EQ(value(fs, "DCGM_FI_PROF_DRAM_ACTIVE", {{"GPU_I_ID", "1"}}), 0.5);
  EXPECT_EQ(value(fs, "DCGM_FI_PROF_GR_ENGINE_ACTIVE", {{"GPU_I_ID", "2"}, {"pod", ""}}), 0.0);
  EXPECT_EQ(value(fs, "DCGM_FI_DEV_FB_USED", {{"GPU_I_ID", "1"}, {"GPU_I_PROFILE", "3g.40gb"}}), 2048.0);
  EXPECT_FALSE(family(fs, "DCGM_FI_DEV_FB_CAPACITY_BYTES")) << "a 4.9 name";
}

TEST(GpuFamilies, TheDcgm49NamingRenamesFieldsLabelsAndUnits) {
  const auto fs = gpu_families(nvidia_sample(), {DcgmNaming::dcgm_4_9});
  EXPECT_FALSE(family(fs, "DCGM_FI_DEV_GPU_UTIL"));
  EXPECT_EQ(value(fs, "DCGM_FI_DEV_GPU_UTIL_RATIO", {{"gpu", "0"}, {"hostname", "node-a"},
                                                     {"DCGM_FI_SYSTEM_DRIVER_VERSION", "550.54.15"}}),
            0.42);
  EXPECT_EQ(value(fs, "DCGM_FI_DEV_FB_USED_BYTES", {{"gpu", "0"}}), 1024.0 * 1024 * 1024);
  EXPECT_EQ(value(fs, "DCGM_FI_DEV_FB_CAPACITY_BYTES", {{"gpu", "0"}}), 80.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(value(fs, "DCGM_FI_DEV_SM_CLOCK_HERTZ", {{"gpu", "0"}}), 1410e6);
  EXPECT_EQ(value(fs, "DCGM_FI_DEV_GPU_ENERGY_JOULES_TOTAL", {{"gpu", "0"}}), 123456.0);
  EXPECT_EQ(value(fs, "DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO", {{"GPU_I_ID", "1"}}), 0.25);
  // The neutral families do not change with the naming.
  EXPECT_EQ(value(fs, "gpupool_gpu_utilization_ratio", {{"gpu", "0"}}), 0.42);
}

TEST(GpuFamilies, AmdGpusGetDeviceMetricsExporterNamesAndNoDcgmOnes) {
  GpuSample s;
  s.hostname = "node-b";
  s.inventory.driver_version = "6.8.5";
  backend::GpuInfo g;
  g.index = 3;
  g.uuid = "c6d49f5b-0d86";
  g.name = "AMD Instinct MI300X";
  g.vendor = gpu::Vendor::amd;
  g.compute_partition = "CPX";
  g.memory_partition = "NPS4";
  s.inventory.gpus = {g};
  backend::GpuMetrics m;
  m.index = 3;
  m.utilization_percent = 64;
  m.memory_used_mib = 100;
  m.energy_millijoules = 5;
  m.sm_clock_mhz = 2100;
  s.metrics = {m};
  s.users.gpus[3] = {{"ml", "job-1", "c"}};
  const auto fs = gpu_families(s);
  EXPECT_EQ(value(fs, "gpu_gfx_activity", {{"gpu_id", "3"}, {"card_model", "AMD Instinct MI300X"}, {"hostname", "node-b"},
                                           {"gpu_compute_partition_type", "CPX"}, {"gpu_memory_partition_type", "NPS4"},
                                           {"pod", "job-1"}, {"namespace", "ml"}}),
            64.0);
  EXPECT_EQ(value(fs, "gpu_energy_consumed", {{"gpu_id", "3"}}), 5000.0);
  EXPECT_EQ(value(fs, "gpu_clock", {{"clock_type", "GPU_CLOCK_TYPE_SYSTEM"}}), 2100.0);
  EXPECT_EQ(value(fs, "gpupool_gpu_utilization_ratio", {{"gpu", "3"}, {"vendor", "amd"}, {"pod", "job-1"}}), 0.64);
  for (const auto& f : fs) EXPECT_NE(f.name.rfind("DCGM_", 0), 0u) << f.name;
}

// promtool parses everything; its lint finds nothing but the camelCase label
// names dcgm-exporter uses (UUID, modelName, Hostname), which dashboards need.
TEST(GpuFamilies, PromtoolCheckMetricsIsCleanButForDcgmExportersOwnLabelNames) {
  const auto promtool = test::find_promtool();
  if (!promtool) GTEST_SKIP() << "promtool not installed (Debian package prometheus)";
  for (const auto naming : {DcgmNaming::classic, DcgmNaming::dcgm_4_9}) {
    auto families = gpu_families(nvidia_sample(), {naming});
    std::vector<metrics::FamilySnapshot> ours, dcgm;
    for (auto& f : families) (f.name.rfind("DCGM_", 0) == 0 ? dcgm : ours).push_back(std::move(f));
    ASSERT_FALSE(dcgm.empty());
    const auto clean = test::promtool_check_metrics(*promtool, metrics::render_text(ours));
    EXPECT_EQ(clean.exit_code, 0) << clean.output;
    EXPECT_EQ(clean.output, "");
    const auto lint = test::promtool_check_metrics(*promtool, metrics::render_text(dcgm));
    EXPECT_EQ(lint.exit_code, 3) << "3: lint findings only, no parse error\n" << lint.output;
    std::istringstream lines(lint.output);
    std::string line;
    int findings = 0;
    while (std::getline(lines, line)) {
      ++findings;
      EXPECT_EQ(line.rfind("DCGM_", 0), 0u) << line;
      EXPECT_NE(line.find("label names should be written in 'snake_case' not 'camelCase'"), std::string::npos) << line;
    }
    EXPECT_GT(findings, 0);
  }
}

}  // namespace
}  // namespace gpupool::exporter
