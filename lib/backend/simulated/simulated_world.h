// Private to the simulated backend: the world file (see simulated_backend.h)
// and the persisted hardware state.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gpupool/backend/simulated_backend.h"
#include "simulated_telemetry.h"

namespace gpupool::backend::sim {

struct World {
  std::string driver_version;  // installed before any install
  std::string cuda_version = "12.4";
  std::vector<SimulatedGpuGroup> gpus;
  double install_seconds = 1.0;
  double mig_operation_seconds = 0;  // each MIG instance create/destroy takes this long
  std::string install_fail;  // non-empty: installs fail with this message
  std::set<int> reset_refused;
  std::vector<XidEvent> xids;
  std::map<int, double> temperature_celsius;
  std::map<int, std::int64_t> ecc_uncorrected;
  std::map<int, std::int64_t> ecc_corrected;
  std::map<int, GpuTelemetry> telemetry;  // by GPU index (simulated_telemetry.h)
};

// Reads a world file; throws BackendError("invalid-config", "<path>: <what>").
World read_world(const std::string& path, const gpu::Catalog& catalog);

struct GpuState {
  MigModeState mig;
  std::vector<MigInstance> instances;  // sorted by placement_start
  std::string compute_partition;
  std::string memory_partition;
  int next_gpu_instance_id = 1;
};

struct HardwareState {
  std::string driver_version;               // "" = the world's
  std::map<std::string, GpuState> by_uuid;  // keyed by UUID: unplugging a GPU shifts no state
};

// Missing file: empty state. Unreadable or malformed: BackendError("invalid-state").
HardwareState load_state(const std::string& path);
// Written to a temporary file and renamed over `path`: never half-written.
void save_state(const std::string& path, const HardwareState& state);

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", stable for (node, index).
std::string simulated_uuid(const std::string& prefix, const std::string& node, int index, int sub = -1);

}  // namespace gpupool::backend::sim
