// A node's GPUs as the GPU metrics exporter sees them, built by hand for
// tests of the exporter and of what reads its names (alerts, dashboard).
#pragma once

#include "gpupool/exporter/gpu_families.h"

namespace gpupool::test {

// GPU 0: A100 without MIG, held by train/p0; GPU 1: A100 in MIG mode with a
// 3g.40gb instance (GI 1, held by infer/p1) and a 1g.10gb instance (GI 2, free).
inline exporter::GpuSample two_a100_sample() {
  exporter::GpuSample s;
  s.hostname = "node-a";
  s.inventory.driver_version = "550.54.15";
  backend::GpuInfo g0;
  g0.index = 0;
  g0.uuid = "GPU-0000";
  g0.name = "NVIDIA A100-SXM4-80GB";
  g0.pci_bus_id = "00000000:07:00.0";
  backend::GpuInfo g1 = g0;
  g1.index = 1;
  g1.uuid = "GPU-1111";
  g1.pci_bus_id = "00000000:0F:00.0";
  g1.mig_capable = true;
  g1.mig = {backend::MigMode::enabled, backend::MigMode::enabled};
  backend::MigInstance i1;
  i1.profile = "3g.40gb";
  i1.gpu_instance_id = 1;
  i1.placement_start = 0;
  i1.uuid = "MIG-aaaa";
  backend::MigInstance i2 = i1;
  i2.profile = "1g.10gb";
  i2.gpu_instance_id = 2;
  i2.placement_start = 4;
  i2.uuid = "MIG-bbbb";
  g1.instances = {i1, i2};
  s.inventory.gpus = {g0, g1};

  backend::GpuMetrics m0;
  m0.index = 0;
  m0.utilization_percent = 42;
  m0.memory_used_mib = 1024;
  m0.memory_free_mib = 80 * 1024 - 1024;
  m0.memory_total_mib = 80 * 1024;
  m0.temperature_celsius = 61;
  m0.power_watts = 250.5;
  m0.energy_millijoules = 123'456'000;
  m0.sm_clock_mhz = 1410;
  m0.memory_clock_mhz = 1593;
  m0.ecc_corrected_total = 3;
  m0.ecc_uncorrected_total = 0;
  m0.clock_event_reasons = std::vector<std::string>{"sw_power_cap"};
  m0.clock_event_reasons_mask = 0x4;
  backend::GpuMetrics m1;
  m1.index = 1;
  m1.temperature_celsius = 55;  // no utilisation for the whole GPU in MIG mode
  backend::InstanceMetrics im1;
  im1.gpu_instance_id = 1;
  im1.utilization_percent = 17;
  im1.graphics_engine_active = 0.25;
  im1.dram_active = 0.5;
  im1.memory_used_mib = 2048;
  im1.memory_free_mib = 38 * 1024;
  backend::InstanceMetrics im2;
  im2.gpu_instance_id = 2;
  im2.graphics_engine_active = 0;  // utilisation unknown (first GPM sample)
  m1.instances = {im1, im2};
  s.metrics = {m0, m1};

  s.xids[0].counts = {{79, 2}, {13, 1}};
  s.xids[0].last = 79;
  s.health[0] = api::GPUHealth::unhealthy;
  s.health[1] = api::GPUHealth::healthy;
  s.users.gpus[0] = {{"train", "p0", "main"}};
  s.users.mig_instances[{1, 1}] = {{"infer", "p1", "server"}};
  s.tenants["train"] = "team-a";
  return s;
}

}  // namespace gpupool::test
