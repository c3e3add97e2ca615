// MIG changes: the MIG mode, creating a GPU instance with its compute
// instance, destroying one.
#include "nvml_parts.h"

namespace gpupool::backend::nvml {
namespace {

const gpu::MigProfile& catalog_profile(const Library& lib, nvmlDevice_t device, int gpu, const gpu::GpuModel* model,
                                       const std::string& profile) {
  if (model == nullptr) {
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
    lib.check(lib.api().name(device, name, sizeof name), "nvmlDeviceGetName", gpu);
    throw BackendError("not-found", "GPU " + std::to_string(gpu) + " (" + from_buffer(name) +
                                        ") is not a model of the GPU catalog: its MIG profiles are unknown");
  }
  if (!model->mig) {
    throw BackendError("not-supported", "GPU " + std::to_string(gpu) + " (" + gpu::short_name(*model) +
                                            ") does not support MIG");
  }
  const gpu::MigProfile* found = model->mig->profile(profile);
  if (found == nullptr) {
    std::string known;
    for (const gpu::MigProfile& p : model->mig->profiles) known += (known.empty() ? "" : ", ") + p.name;
    throw BackendError("not-found", "unknown MIG profile " + profile + " for " + gpu::short_name(*model) +
                                        " (known: " + known + ")");
  }
  return *found;
}

// The compute-instance profile spanning all of a GPU instance's compute slices.
ProfileInfo full_compute_profile(const Library& lib, nvmlGpuInstance_t instance, int gpu, unsigned slices,
                                 const std::string& what) {
  for (const ProfileInfo& profile : compute_instance_profiles(lib, instance, gpu)) {
    if (profile.slice_count == slices) return profile;
  }
  lib.fail(NVML_ERROR_NOT_SUPPORTED, "nvmlGpuInstanceGetComputeInstanceProfileInfo", gpu,
           what + ": no compute-instance profile of " + std::to_string(slices) + " slices");
}

}  // namespace

MigModeChange set_mig_mode(const Library& lib, nvmlDevice_t device, int gpu, bool enabled) {
  const Api& api = lib.api();
  lib.require(api.set_mig_mode, "nvmlDeviceSetMigMode");
  lib.require(api.get_mig_mode, "nvmlDeviceGetMigMode");
  const unsigned wanted = enabled ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
  nvmlReturn_t activation = NVML_SUCCESS;
  lib.check(api.set_mig_mode(device, wanted, &activation), "nvmlDeviceSetMigMode", gpu,
            enabled ? "enable" : "disable");
  // The mode is accepted; activating it needs a GPU reset the driver could not
  // do now (the GPU is in use) or at all (pass-through VM).
  if (activation == NVML_ERROR_IN_USE || activation == NVML_ERROR_RESET_REQUIRED) return MigModeChange::reset_required;
  lib.check(activation, "nvmlDeviceSetMigMode", gpu, "activation status");
  unsigned current = 0, pending = 0;
  lib.check(api.get_mig_mode(device, &current, &pending), "nvmlDeviceGetMigMode", gpu);
  return current == wanted && pending == wanted ? MigModeChange::applied : MigModeChange::reset_required;
}

MigInstance create_mig_instance(const Library& lib, nvmlDevice_t device, int gpu, const gpu::GpuModel* model,
                                const std::string& profile, int placement_start) {
  const Api& api = lib.api();
  const gpu::MigProfile& wanted = catalog_profile(lib, device, gpu, model, profile);
  if (!can_read_mig(api)) lib.require(nullptr, "nvmlDeviceGetGpuInstances");
  lib.require(api.create_gpu_instance, "nvmlDeviceCreateGpuInstanceWithPlacement");
  lib.require(api.create_compute_instance, "nvmlGpuInstanceCreateComputeInstance");
  lib.require(api.destroy_gpu_instance, "nvmlGpuInstanceDestroy");
  const std::string what = profile + " at memory slice " + std::to_string(placement_start);

  const ProfileInfo* gi_profile = nullptr;
  const auto profiles = gpu_instance_profiles(lib, device, gpu);
  for (const ProfileInfo& p : profiles) {
    if (static_cast<int>(p.id) == wanted.profile_id) gi_profile = &p;
  }
  if (gi_profile == nullptr) {
    lib.fail(NVML_ERROR_NOT_SUPPORTED, "nvmlDeviceGetGpuInstanceProfileInfo", gpu,
             what + ": the GPU offers no profile id " + std::to_string(wanted.profile_id));
  }

  // Wrong placements are the driver's to refuse (NVML_ERROR_INVALID_ARGUMENT,
  // NVML_ERROR_INSUFFICIENT_RESOURCES): no check of ours hides its answer.
  const nvmlGpuInstancePlacement_t placement{static_cast<unsigned>(placement_start),
                                             static_cast<unsigned>(wanted.memory_slices)};
  nvmlGpuInstance_t instance{nullptr};
  lib.check(api.create_gpu_instance(device, gi_profile->id, &placement, &instance),
            "nvmlDeviceCreateGpuInstanceWithPlacement", gpu, what);
  try {
    const ProfileInfo ci_profile = full_compute_profile(lib, instance, gpu, gi_profile->slice_count, what);
    nvmlComputeInstance_t compute{nullptr};
    lib.check(api.create_compute_instance(instance, ci_profile.id, &compute), "nvmlGpuInstanceCreateComputeInstance",
              gpu, what);
  } catch (const BackendError&) {
    api.destroy_gpu_instance(instance);  // leave no half-made instance; the first error is the one to report
    throw;
  }
  MigInstance created = describe_gpu_instance(lib, instance, gpu, model, mig_device_uuids(lib, device, gpu));
  created.memory_mib = gi_profile->memory_mib;
  return created;
}

void destroy_mig_instance(const Library& lib, nvmlDevice_t device, int gpu, int gpu_instance_id) {
  const Api& api = lib.api();
  if (!can_read_mig(api)) lib.require(nullptr, "nvmlDeviceGetGpuInstances");
  lib.require(api.gpu_instance_by_id, "nvmlDeviceGetGpuInstanceById");
  lib.require(api.destroy_compute_instance, "nvmlComputeInstanceDestroy");
  lib.require(api.destroy_gpu_instance, "nvmlGpuInstanceDestroy");
  const std::string what = "GPU instance " + std::to_string(gpu_instance_id);
  nvmlGpuInstance_t instance{nullptr};
  lib.check(api.gpu_instance_by_id(device, static_cast<unsigned>(gpu_instance_id), &instance),
            "nvmlDeviceGetGpuInstanceById", gpu, what);
  for (nvmlComputeInstance_t compute : compute_instances(lib, instance, gpu)) {
    lib.check(api.destroy_compute_instance(compute), "nvmlComputeInstanceDestroy", gpu, what);
  }
  lib.check(api.destroy_gpu_instance(instance), "nvmlGpuInstanceDestroy", gpu, what);
}

}  // namespace gpupool::backend::nvml
