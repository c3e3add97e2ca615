#include "partition_change.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "gpupool/backend/backend.h"

namespace gpupool::backend::amd {

namespace {

constexpr std::array<std::string_view, 5> kComputeModes{"SPX", "DPX", "TPX", "QPX", "CPX"};
constexpr std::array<std::string_view, 4> kMemoryModes{"NPS1", "NPS2", "NPS4", "NPS8"};

template <std::size_t N>
void check_mode(const std::string& mode, const std::array<std::string_view, N>& known, const char* what) {
  if (mode.empty() || std::find(known.begin(), known.end(), mode) != known.end()) return;
  std::string list;
  for (auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
  throw BackendError("invalid-argument", "unknown " + std::string(what) + " partition mode \"" + mode.substr(0, 40) +
                                             "\" (known: " + list + ")");
}

// NPS1 -> 1, NPS4 -> 4; 0 when unknown.
int memory_partitions(const std::string& mode) {
  if (mode.size() != 4 || mode.compare(0, 3, "NPS") != 0) return 0;
  return mode[3] - '0';
}

std::string gpu_name(int gpu_index) { return "GPU " + std::to_string(gpu_index); }

}  // namespace

void change_partition(int gpu_index, const std::string& compute, const std::string& memory, const PartitionTool& tool) {
  if (gpu_index < 0) throw BackendError("invalid-argument", "GPU index " + std::to_string(gpu_index) + " is negative");
  check_mode(compute, kComputeModes, "compute");
  check_mode(memory, kMemoryModes, "memory");
  if (compute.empty() && memory.empty()) return;

  const CurrentModes now = tool.read();
  const bool compute_needed = !compute.empty() && compute != now.compute;
  const bool memory_needed = !memory.empty() && memory != now.memory;
  // NPS4 allows only CPX, so leaving it (NPS4 -> NPS1, CPX -> SPX) must change memory first.
  const bool memory_first = memory_needed && memory_partitions(memory) < memory_partitions(now.memory);

  if (compute_needed && !memory_first) tool.set_compute(compute);
  if (!memory_needed) return;
  tool.set_memory(memory);
  const CurrentModes after = tool.read();
  if (after.memory != memory) {
    std::string message = "memory partition " + memory + " set on " + gpu_name(gpu_index) +
                          "; it takes effect after the amdgpu driver is reloaded (modprobe -r amdgpu && "
                          "modprobe amdgpu) with no process using the GPUs";
    if (compute_needed && memory_first) {
      message += "; compute partition " + compute + " is applied by the same request made after the reload";
    }
    throw BackendError("driver-reload-required", message);
  }
  if (compute_needed && memory_first && after.compute != compute) tool.set_compute(compute);
}

}  // namespace gpupool::backend::amd
