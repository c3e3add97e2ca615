// The GPU backend that talks to NVIDIA's driver through NVML
// (libnvidia-ml.so.1), loaded at run time: nothing of NVIDIA's is needed to
// build, and a node without the driver fails at make_nvml_backend, not at
// program start.
//
// - The library is dlopen'ed once; each NVML function is looked up by its
//   versioned symbol, newest first (nvmlDeviceGetPciInfo_v3, then _v2, ...).
//   A missing required symbol throws BackendError("NVML_ERROR_FUNCTION_NOT_FOUND");
//   a missing optional one turns its feature off (no MIG device UUIDs, no
//   NVLink counts, a metric left empty, no XID events).
// - nvmlInit runs once, in make_nvml_backend; nvmlShutdown in the destructor.
// - Every failing NVML call throws BackendError whose code is NVML's name for
//   the failure ("NVML_ERROR_NOT_SUPPORTED") and whose message names the call
//   and carries nvmlErrorString's text:
//   "nvmlDeviceGetName(GPU 1): GPU is lost (NVML_ERROR_GPU_IS_LOST)".
//   Metrics a GPU does not support (NVML_ERROR_NOT_SUPPORTED) are left empty
//   instead.
// - metrics(): per GPU, NVML's readings (nvmlDeviceGetMemoryInfo,
//   GetTemperature(V), GetPowerUsage, GetUtilizationRates,
//   GetTotalEnergyConsumption, GetClockInfo for SM and memory clocks,
//   GetCurrentClocksEventReasons (GetCurrentClocksThrottleReasons before
//   R535), GetTotalEccErrors); per MIG instance, memory through its MIG
//   device handle and, on GPUs with GPM (Hopper and newer), GRAPHICS_UTIL,
//   SM_UTIL and DRAM_BW_UTIL from nvmlGpmMigSampleGet. GPM compares two
//   samples: the backend keeps each instance's last one, so those fields are
//   empty on the first metrics() and cover the time since the previous call
//   afterwards.
// - MIG profiles are named by the catalog: a profile of a GPU instance is the
//   catalog profile with the same NVML profile id on the GPU's model;
//   create_mig_instance uses the catalog's id for the name it is given.
// - set_mig_mode reports reset_required when NVML's activation status is
//   NVML_ERROR_IN_USE / NVML_ERROR_RESET_REQUIRED or the pending mode still
//   differs from the current one afterwards.
// - XID events come from one NVML event set, created on the first
//   wait_xid_events and registered for nvmlEventTypeXidCriticalError on every
//   GPU that supports it; an event's time is when the wait returned it.
// - set_amd_partition throws BackendError("not-supported").
#pragma once

#include <memory>
#include <string>

#include "gpupool/backend/backend.h"

namespace gpupool::backend {

struct NvmlOptions {
  // Passed to dlopen as is: a bare name searches the library path.
  std::string library_path = "libnvidia-ml.so.1";
  // The catalog naming models and MIG profiles; nullptr: gpu::Catalog::builtin().
  // It must outlive the backend.
  const gpu::Catalog* catalog = nullptr;
};

// Loads NVML and initialises it. Throws BackendError:
// "NVML_ERROR_LIBRARY_NOT_FOUND" when the library cannot be loaded,
// "NVML_ERROR_FUNCTION_NOT_FOUND" when it lacks a required function,
// or nvmlInit's failure ("NVML_ERROR_DRIVER_NOT_LOADED", ...).
std::unique_ptr<GpuBackend> make_nvml_backend(const NvmlOptions& options = {});

}  // namespace gpupool::backend
