// The two AMD backends behind make_amd_backend (amd_backend.h) and what they
// share: no MIG, no XID events. Internal.
#pragma once

#include <memory>

#include "amd_tool.h"
#include "gpupool/backend/amd_parse.h"
#include "gpupool/backend/backend.h"
#include "gpupool/gpu/catalog.h"

namespace gpupool::backend::amd {

// What every AMD backend answers the same way.
class AmdBackendBase : public GpuBackend {
 public:
  std::string name() const override { return "amd"; }
  // Sleeps for `timeout` (no polling) and returns nothing: no XIDs on AMD.
  std::vector<XidEvent> wait_xid_events(std::chrono::milliseconds timeout) override;
  // BackendError "not-supported".
  MigModeChange set_mig_mode(int gpu_index, bool enabled) override;
  MigInstance create_mig_instance(int gpu_index, const std::string& profile, int placement_start) override;
  void destroy_mig_instance(int gpu_index, int gpu_instance_id) override;
};

// A memory-partition set may reload the driver inside the command (amd-smi of
// ROCm 6.3 waits up to 140 s for it).
inline constexpr std::chrono::milliseconds kMemorySetTimeout{200000};

// The parsed value, or BackendError "parse" naming where the output was unreadable.
template <class T>
T value_or_throw(amdsmi::Parsed<T> parsed) {
  if (!parsed) throw_parse_error(parsed.error);
  return std::move(*parsed.value);
}

std::unique_ptr<GpuBackend> make_amd_smi_backend(Tool amd_smi, const gpu::Catalog& catalog);
std::unique_ptr<GpuBackend> make_rocm_smi_backend(Tool rocm_smi, const gpu::Catalog& catalog);

}  // namespace gpupool::backend::amd
