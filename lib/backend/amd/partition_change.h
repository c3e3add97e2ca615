// The order of an AMD partition change, independent of the tool that makes
// it (amd-smi or rocm-smi): skip modes already current, put memory first when
// it loses partitions, report a memory change pending a driver reload.
// Internal to the AMD backend; the behaviour is documented in amd_backend.h.
#pragma once

#include <functional>
#include <string>

namespace gpupool::backend::amd {

struct CurrentModes {
  std::string compute;  // "" when unknown
  std::string memory;
};

struct PartitionTool {
  std::function<CurrentModes()> read;  // the GPU's modes now
  std::function<void(const std::string&)> set_compute;
  std::function<void(const std::string&)> set_memory;
};

// Validates the modes ("invalid-argument"), then applies them through `tool`.
// Throws BackendError "driver-reload-required" when a memory mode was set but
// is not yet current.
void change_partition(int gpu_index, const std::string& compute, const std::string& memory, const PartitionTool& tool);

}  // namespace gpupool::backend::amd
