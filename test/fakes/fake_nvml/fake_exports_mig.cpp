// Exported NVML: MIG mode, profiles, GPU and compute instances, MIG devices.
#include <algorithm>

#include "fake_mig_rules.h"
#include "fake_shared.h"

using namespace fake_nvml;

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned* current, unsigned* pending) {
  Call call("nvmlDeviceGetMigMode");
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || current == nullptr || pending == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (!gpu->model->mig) return NVML_ERROR_NOT_SUPPORTED;
  *current = gpu->mig_current;
  *pending = gpu->mig_pending;
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceSetMigMode(nvmlDevice_t device, unsigned mode, nvmlReturn_t* activation) {
  Call call("nvmlDeviceSetMigMode");
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || activation == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return set_mig_mode(*gpu, mode, *activation);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned profile,
                                                                  nvmlGpuInstanceProfileInfo_t* info) {
  return gi_profile_info("nvmlDeviceGetGpuInstanceProfileInfo", device, profile, info, nullptr);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstancePossiblePlacements(nvmlDevice_t device, unsigned profile_id,
                                                                         nvmlGpuInstancePlacement_t* placements,
                                                                         unsigned* count) {
  return gi_possible_placements("nvmlDeviceGetGpuInstancePossiblePlacements", device, profile_id, placements, count);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceCreateGpuInstanceWithPlacement(nvmlDevice_t device, unsigned profile_id,
                                                                       const nvmlGpuInstancePlacement_t* placement,
                                                                       nvmlGpuInstance_t* instance) {
  Call call("nvmlDeviceCreateGpuInstanceWithPlacement");
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || placement == nullptr || instance == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  GpuInstance* created = nullptr;
  const nvmlReturn_t ret = create_gpu_instance(*gpu, profile_id, *placement, created);
  if (ret == NVML_SUCCESS) *instance = handle_of(*created);
  return ret;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstances(nvmlDevice_t device, unsigned profile_id,
                                                        nvmlGpuInstance_t* instances, unsigned* count) {
  Call call("nvmlDeviceGetGpuInstances");
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || instances == nullptr || count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (!gpu->model->mig || !gpu->mig_enabled()) return NVML_ERROR_NOT_SUPPORTED;
  if (profile_by_id(*gpu->model, profile_id) == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned n = 0;
  for (auto& gi : gpu->instances) {
    if (gi->profile->profile_id == static_cast<int>(profile_id)) instances[n++] = handle_of(*gi);
  }
  *count = n;
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t device, unsigned id, nvmlGpuInstance_t* instance) {
  Call call("nvmlDeviceGetGpuInstanceById");
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || instance == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (!gpu->model->mig || !gpu->mig_enabled()) return NVML_ERROR_NOT_SUPPORTED;
  GpuInstance* gi = gpu->instance(id);
  if (gi == nullptr) return NVML_ERROR_NOT_FOUND;
  *instance = handle_of(*gi);
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t instance, nvmlGpuInstanceInfo_t* info) {
  Call call("nvmlGpuInstanceGetInfo");
  if (call.early) return *call.early;
  GpuInstance* gi = call.st.gpu_instance(instance);
  if (gi == nullptr || info == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  info->device = handle_of(*gi->parent);
  info->id = gi->id;
  info->profileId = static_cast<unsigned>(gi->profile->profile_id);
  info->placement = {gi->start, gi->size};
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlGpuInstanceDestroy(nvmlGpuInstance_t instance) {
  Call call("nvmlGpuInstanceDestroy");
  if (call.early) return *call.early;
  GpuInstance* gi = call.st.gpu_instance(instance);
  if (gi == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return destroy_gpu_instance(*gi);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfo(nvmlGpuInstance_t instance, unsigned profile,
                                                                           unsigned engine_profile,
                                                                           nvmlComputeInstanceProfileInfo_t* info) {
  return ci_profile_info("nvmlGpuInstanceGetComputeInstanceProfileInfo", instance, profile, engine_profile, info, nullptr);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlGpuInstanceCreateComputeInstance(nvmlGpuInstance_t instance, unsigned profile_id,
                                                                   nvmlComputeInstance_t* compute) {
  Call call("nvmlGpuInstanceCreateComputeInstance");
  if (call.early) return *call.early;
  GpuInstance* gi = call.st.gpu_instance(instance);
  if (gi == nullptr || compute == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  ComputeInstance* created = nullptr;
  const nvmlReturn_t ret = create_compute_instance(call.st, *gi, profile_id, created);
  if (ret == NVML_SUCCESS) *compute = handle_of(*created);
  return ret;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlGpuInstanceGetComputeInstances(nvmlGpuInstance_t instance, unsigned profile_id,
                                                                 nvmlComputeInstance_t* computes, unsigned* count) {
  Call call("nvmlGpuInstanceGetComputeInstances");
  if (call.early) return *call.early;
  GpuInstance* gi = call.st.gpu_instance(instance);
  if (gi == nullptr || computes == nullptr || count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (compute_profile_slices(profile_id, static_cast<unsigned>(gi->profile->compute_slices)) == 0) {
    return NVML_ERROR_NOT_SUPPORTED;
  }
  unsigned n = 0;
  for (auto& ci : gi->compute) {
    if (ci->profile_id == profile_id) computes[n++] = handle_of(*ci);
  }
  *count = n;
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlComputeInstanceGetInfo(nvmlComputeInstance_t instance, nvmlComputeInstanceInfo_t* info) {
  return compute_instance_info("nvmlComputeInstanceGetInfo", instance, info, false);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlComputeInstanceDestroy(nvmlComputeInstance_t instance) {
  Call call("nvmlComputeInstanceDestroy");
  if (call.early) return *call.early;
  ComputeInstance* ci = call.st.compute_instance(instance);
  if (ci == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  return destroy_compute_instance(*ci);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned* count) {
  Call call("nvmlDeviceGetMaxMigDeviceCount");
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *count = gpu->model->mig && gpu->mig_enabled() ? static_cast<unsigned>(gpu->model->mig->compute_slices) : 0;
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned* id) {
  Call call("nvmlDeviceGetGpuInstanceId");
  if (call.early) return *call.early;
  if (id == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  ComputeInstance* mig = call.st.mig_device(device);
  if (mig == nullptr) return call.st.gpu(device) ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
  *id = mig->parent->id;
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned* id) {
  Call call("nvmlDeviceGetComputeInstanceId");
  if (call.early) return *call.early;
  if (id == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  ComputeInstance* mig = call.st.mig_device(device);
  if (mig == nullptr) return call.st.gpu(device) ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
  *id = mig->id;
  return NVML_SUCCESS;
}

namespace fake_nvml {

nvmlReturn_t gi_profile_info(const char* symbol, nvmlDevice_t device, unsigned profile,
                             nvmlGpuInstanceProfileInfo_t* info, std::string* name) {
  Call call(symbol);
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || info == nullptr || profile >= NVML_GPU_INSTANCE_PROFILE_COUNT) return NVML_ERROR_INVALID_ARGUMENT;
  // Answered with MIG mode off too, as the real library does.
  const gpupool::gpu::MigProfile* p = profile_for_index(*gpu->model, profile);
  if (p == nullptr) return NVML_ERROR_NOT_SUPPORTED;
  *info = profile_info(*p);
  if (name != nullptr) *name = "MIG " + p->name;
  return NVML_SUCCESS;
}

nvmlReturn_t gi_possible_placements(const char* symbol, nvmlDevice_t device, unsigned profile_id,
                                    nvmlGpuInstancePlacement_t* placements, unsigned* count) {
  Call call(symbol);
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  const gpupool::gpu::MigProfile* p = profile_by_id(*gpu->model, profile_id);
  if (p == nullptr) return NVML_ERROR_NOT_SUPPORTED;
  const auto n = static_cast<unsigned>(p->placements.size());
  if (placements != nullptr) {
    for (unsigned i = 0; i < n; ++i) {
      placements[i] = {static_cast<unsigned>(p->placements[i].start), static_cast<unsigned>(p->placements[i].size)};
    }
  }
  *count = n;
  return NVML_SUCCESS;
}

nvmlReturn_t ci_profile_info(const char* symbol, nvmlGpuInstance_t instance, unsigned profile, unsigned engine_profile,
                             nvmlComputeInstanceProfileInfo_t* info, std::string* name) {
  Call call(symbol);
  if (call.early) return *call.early;
  GpuInstance* gi = call.st.gpu_instance(instance);
  if (gi == nullptr || info == nullptr || profile >= NVML_COMPUTE_INSTANCE_PROFILE_COUNT ||
      engine_profile != NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED) {
    return NVML_ERROR_INVALID_ARGUMENT;
  }
  const auto gi_slices = static_cast<unsigned>(gi->profile->compute_slices);
  if (compute_profile_slices(profile, gi_slices) == 0) return NVML_ERROR_NOT_SUPPORTED;
  *info = compute_profile_info(profile, gi_slices);
  if (name != nullptr) *name = std::to_string(info->sliceCount) + "c." + gi->profile->name;
  return NVML_SUCCESS;
}

nvmlReturn_t compute_instance_info(const char* symbol, nvmlComputeInstance_t instance, nvmlComputeInstanceInfo_t* info,
                                   bool with_placement) {
  Call call(symbol);
  if (call.early) return *call.early;
  ComputeInstance* ci = call.st.compute_instance(instance);
  if (ci == nullptr || info == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  info->device = handle_of(*ci->parent->parent);
  info->gpuInstance = handle_of(*ci->parent);
  info->id = ci->id;
  info->profileId = ci->profile_id;
  if (with_placement) info->placement = {ci->start, ci->size};
  return NVML_SUCCESS;
}

std::vector<ComputeInstance*> mig_devices(Gpu& gpu) {
  std::vector<ComputeInstance*> all;
  for (auto& gi : gpu.instances) {
    for (auto& ci : gi->compute) all.push_back(ci.get());
  }
  std::sort(all.begin(), all.end(), [](const ComputeInstance* a, const ComputeInstance* b) {
    return a->parent->id != b->parent->id ? a->parent->id < b->parent->id : a->id < b->id;
  });
  return all;
}

}  // namespace fake_nvml
