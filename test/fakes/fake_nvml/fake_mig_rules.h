// MIG as the fake's driver does it, by the catalog: which
// NVML_GPU_INSTANCE_PROFILE_* is which catalog profile, and the rules for
// creating and destroying GPU and compute instances and changing MIG mode.
// Callers hold the state's lock.
#pragma once

#include "fake_state.h"

namespace fake_nvml {

// The catalog profile that NVML_GPU_INSTANCE_PROFILE_* `index` stands for on
// `model` (1 compute slice -> _1_SLICE, "+me" -> _REV1, a 1-slice profile with
// more memory than another -> _REV2, ...); nullptr if it has none.
const gpupool::gpu::MigProfile* profile_for_index(const gpupool::gpu::GpuModel& model, unsigned index);
const gpupool::gpu::MigProfile* profile_by_id(const gpupool::gpu::GpuModel& model, unsigned profile_id);
nvmlGpuInstanceProfileInfo_t profile_info(const gpupool::gpu::MigProfile& profile);

// Compute slices of NVML_COMPUTE_INSTANCE_PROFILE_* `index` when a GPU
// instance of `gi_slices` compute slices offers it, else 0.
unsigned compute_profile_slices(unsigned index, unsigned gi_slices);
nvmlComputeInstanceProfileInfo_t compute_profile_info(unsigned index, unsigned gi_slices);

nvmlReturn_t create_gpu_instance(Gpu& gpu, unsigned profile_id, const nvmlGpuInstancePlacement_t& placement,
                                 GpuInstance*& created);
nvmlReturn_t create_compute_instance(State& st, GpuInstance& gi, unsigned profile_id, ComputeInstance*& created);
nvmlReturn_t destroy_gpu_instance(GpuInstance& gi);
nvmlReturn_t destroy_compute_instance(ComputeInstance& ci);

// nvmlDeviceSetMigMode: the mode becomes pending, and current unless the GPU
// is in use (flag, processes or GPU instances), when `activation` is
// NVML_ERROR_IN_USE. reset_gpu (fakeNvmlResetGpu): the pending mode becomes
// current and the instances go, unless in use (flag or processes).
nvmlReturn_t set_mig_mode(Gpu& gpu, unsigned mode, nvmlReturn_t& activation);
nvmlReturn_t reset_gpu(Gpu& gpu);

}  // namespace fake_nvml
