// Choosing the GPU backend from the agent's flags, auto-detection included.
#pragma once

#include <memory>
#include <string>

#include "gpupool/backend/backend.h"
#include "gpupool/backend/simulated_backend.h"

namespace gpupool::backend {

struct BackendSelection {
  std::string kind = "auto";  // nvml | nvidia-smi | amd | simulated | auto
  std::string nvml_library = "libnvidia-ml.so.1";
  std::string nvidia_smi;     // path; "" = $PATH
  std::string amd_smi;        // path; "" = $PATH
  std::string rocm_smi;       // path; "" = $PATH
  SimulatedOptions simulated;
  const gpu::Catalog* catalog = nullptr;
};

struct SelectedBackend {
  std::unique_ptr<GpuBackend> backend;
  SimulatedBackend* simulated = nullptr;  // set when the backend is the simulated one
  std::string why;                        // "auto: libnvidia-ml.so.1 loaded", for the log
};

// auto tries, in order: NVML (the library loads and initialises), nvidia-smi
// in $PATH, amd-smi then rocm-smi in $PATH. Throws BackendError("not-found")
// listing what was tried when nothing fits; an unknown kind is
// BackendError("invalid-argument").
SelectedBackend select_backend(const BackendSelection& selection);

}  // namespace gpupool::backend
