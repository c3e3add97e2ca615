// What the agent's GPU metrics cost: one collection (the families built from
// a sample, once per --telemetry-interval) and one scrape (the text of the
// families last built), for a node of N GPUs in MIG mode with M instances
// each, every instance held by one pod, every value known.
//
//   gpupool-gpu-scrape-bench [--gpus 8] [--instances 7] [--iterations 2000] [--dcgm-naming classic|dcgm-4.9]
//
// Prints figures only (CPU time per operation from getrusage, bytes of the
// exposition); there are no thresholds.
#include <sys/resource.h>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <string>

#include "gpupool/exporter/gpu_families.h"
#include "gpupool/metrics/exposition.h"

namespace {

using namespace gpupool;

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

exporter::GpuSample node_sample(int gpus, int instances) {
  exporter::GpuSample s;
  s.hostname = "gpu-node-0001";
  s.inventory.driver_version = "570.133.20";
  for (int g = 0; g < gpus; ++g) {
    backend::GpuInfo info;
    info.index = g;
    info.uuid = "GPU-" + std::to_string(10000000 + g) + "-aaaa-bbbb-cccc-dddddddddddd";
    info.name = "NVIDIA H100 80GB HBM3";
    info.pci_bus_id = "00000000:" + std::to_string(10 + g) + ":00.0";
    info.mig_capable = true;
    info.mig = {backend::MigMode::enabled, backend::MigMode::enabled};
    backend::GpuMetrics m;
    m.index = g;
    m.temperature_celsius = 55;
    m.power_watts = 420.5;
    m.energy_millijoules = 987654321;
    m.sm_clock_mhz = 1980;
    m.memory_clock_mhz = 2619;
    m.ecc_corrected_total = 0;
    m.ecc_uncorrected_total = 0;
    m.clock_event_reasons = std::vector<std::string>{};
    m.clock_event_reasons_mask = 0;
    for (int i = 0; i < instances; ++i) {
      backend::MigInstance mi;
      mi.profile = "1g.10gb";
      mi.gpu_instance_id = 7 + i;
      mi.placement_start = i;
      mi.uuid = "MIG-" + std::to_string(g) + "-" + std::to_string(i) + "-eeee-ffff-0000-111111111111";
      info.instances.push_back(mi);
      backend::InstanceMetrics im;
      im.gpu_instance_id = mi.gpu_instance_id;
      im.utilization_percent = 37.5;
      im.graphics_engine_active = 0.375;
      im.dram_active = 0.12;
      im.memory_used_mib = 4096;
      im.memory_free_mib = 5760;
      im.memory_total_mib = 9856;
      m.instances.push_back(im);
      s.users.mig_instances[{g, mi.gpu_instance_id}] = {
          {"tenant-" + std::to_string(i), "job-" + std::to_string(g) + "-" + std::to_string(i) + "-5f7d8c9b4-x2k8p", "trainer"}};
    }
    s.inventory.gpus.push_back(info);
    s.metrics.push_back(m);
    s.health[g] = api::GPUHealth::healthy;
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gpupool-gpu-scrape-bench: the cost of the agent's GPU metrics"};
  int gpus = 8, instances = 7, iterations = 2000;
  std::string naming = "classic";
  app.add_option("--gpus", gpus)->capture_default_str()->check(CLI::Range(1, 64));
  app.add_option("--instances", instances, "MIG instances per GPU")->capture_default_str()->check(CLI::Range(0, 7));
  app.add_option("--iterations", iterations)->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--dcgm-naming", naming)->capture_default_str()->check(CLI::IsMember({"classic", "dcgm-4.9"}));
  CLI11_PARSE(app, argc, argv);

  exporter::ExporterOptions options;
  options.dcgm = naming == "classic" ? exporter::DcgmNaming::classic : exporter::DcgmNaming::dcgm_4_9;
  const exporter::GpuSample sample = node_sample(gpus, instances);

  std::size_t series = 0;
  double t0 = cpu_seconds();
  std::vector<metrics::FamilySnapshot> families;
  for (int i = 0; i < iterations; ++i) families = exporter::gpu_families(sample, options);
  const double build_s = (cpu_seconds() - t0) / iterations;
  for (const auto& f : families) series += f.children.size();

  std::size_t bytes = 0;
  t0 = cpu_seconds();
  for (int i = 0; i < iterations; ++i) bytes = metrics::render_text(families).size();
  const double scrape_s = (cpu_seconds() - t0) / iterations;

  std::printf("node: %d GPUs x %d MIG instances, one pod each, naming %s\n", gpus, instances, naming.c_str());
  std::printf("families: %zu, series: %zu\n", families.size(), series);
  std::printf("collection (families built once per telemetry interval): %.1f us CPU\n", build_s * 1e6);
  std::printf("scrape (text of the last collection): %.1f us CPU, %zu bytes (%.1f KiB) before gzip\n", scrape_s * 1e6, bytes,
              static_cast<double>(bytes) / 1024.0);
  return 0;
}
