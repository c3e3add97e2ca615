#include "amd_backends.h"
#include "gpupool/backend/amd_backend.h"

namespace gpupool::backend {

std::unique_ptr<GpuBackend> make_amd_backend(const AmdOptions& options) {
  const gpu::Catalog& catalog = options.catalog != nullptr ? *options.catalog : gpu::Catalog::builtin();
  if (!options.amd_smi_path.empty()) {
    return amd::make_amd_smi_backend(amd::Tool("amd-smi", options.amd_smi_path, options.timeout), catalog);
  }
  if (!options.rocm_smi_path.empty()) {
    return amd::make_rocm_smi_backend(amd::Tool("rocm-smi", options.rocm_smi_path, options.timeout), catalog);
  }
  throw BackendError("invalid-argument", "AMD backend: neither an amd-smi nor a rocm-smi path was given");
}

}  // namespace gpupool::backend
