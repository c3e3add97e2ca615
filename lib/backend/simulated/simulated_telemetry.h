// Private to the simulated backend: the world file's `telemetry:` section and
// the metrics a simulated GPU reports.
//
//   telemetry:                       # by GPU index; every field optional
//     0:
//       utilizationPercent: 42       # 0..100
//       powerWatts: 300
//       temperatureCelsius: 61       # wins over the top-level temperatureCelsius
//       memoryUsedMiB: 20480         # at most the model's memory
//       energyMillijoules: 987654321
//       smClockMHz: 1755
//       memoryClockMHz: 2619
//       clockEventReasons: [sw_power_cap]   # backend.h's kClockEventReasons names
//       eccCorrected: 0              # win over the top-level eccCorrected / eccUncorrected
//       eccUncorrected: 0
//       instances:                   # by GPU instance id (MIG)
//         1: {utilizationPercent: 17, graphicsEngineActive: 0.17, dramActive: 0.05, memoryUsedMiB: 512}
//
// What is not set takes a deterministic default that behaves like the
// hardware the simulation models:
// - a GPU holding a pod (the pod-to-GPU hash of processes()) is busy: 85 %,
//   250 W, half its memory used, SM clock 1410 MHz, no clock event reason;
//   an idle one 0 %, 60 W, no memory used, 210 MHz, reason gpu_idle. Memory
//   clock 1593 MHz, energy 0 mJ, temperature 38 + index °C, no ECC errors.
// - An NVIDIA GPU in MIG mode reports no whole-GPU utilisation (as NVML);
//   its instances report their profile's memory, 0 used, and activity 0 on
//   Hopper and later models (GPM), nothing on older ones.
// - AMD models report no clock event reasons (amd-smi has no NVML mask).
// Set values always win, also where the defaults leave a field empty.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/backend/backend.h"

namespace gpupool::backend::sim {

struct GpuState;
struct World;

struct InstanceTelemetry {
  std::optional<double> utilization_percent;
  std::optional<double> graphics_engine_active;
  std::optional<double> dram_active;
  std::optional<std::int64_t> memory_used_mib;
};

struct GpuTelemetry {
  std::optional<double> utilization_percent;
  std::optional<double> power_watts;
  std::optional<double> temperature_celsius;
  std::optional<std::int64_t> memory_used_mib;
  std::optional<std::int64_t> energy_millijoules;
  std::optional<std::int64_t> sm_clock_mhz;
  std::optional<std::int64_t> memory_clock_mhz;
  std::optional<std::vector<std::string>> clock_event_reasons;
  std::optional<std::int64_t> ecc_corrected;
  std::optional<std::int64_t> ecc_uncorrected;
  std::map<int, InstanceTelemetry> instances;  // by GPU instance id
};

// The `telemetry:` node; throws BackendError("invalid-config", "simulated GPUs
// <path>: telemetry.0.utilizationPercent: must be 0..100") on a bad value or key.
std::map<int, GpuTelemetry> read_telemetry(const YAML::Node& node, const std::string& path);

// What GPU `index` of `model` reports, as described above.
GpuMetrics simulated_metrics(const World& world, int index, const gpu::GpuModel& model, bool busy,
                             const GpuState& state);

}  // namespace gpupool::backend::sim
