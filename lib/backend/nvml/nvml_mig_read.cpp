// Reading MIG state: the profiles a GPU (or GPU instance) offers, its GPU and
// compute instances, and the UUIDs of its MIG devices.
#include <algorithm>

#include "nvml_parts.h"

namespace gpupool::backend::nvml {
namespace {

// Profile enumeration stops at NVML_ERROR_INVALID_ARGUMENT; this bounds it
// against a library that never says so.
constexpr unsigned kMaxProfileIndex = 64;

nvmlReturn_t gi_profile(const Api& api, nvmlDevice_t device, unsigned index, ProfileInfo& out) {
  nvmlReturn_t ret = NVML_ERROR_FUNCTION_NOT_FOUND;
  if (api.gi_profile_info_v != nullptr) {
    nvmlGpuInstanceProfileInfo_v2_t info{};
    info.version = nvmlGpuInstanceProfileInfo_v2;
    ret = api.gi_profile_info_v(device, index, &info);
    if (ret == NVML_SUCCESS) {
      out = {index, info.id, info.sliceCount, info.instanceCount, static_cast<std::int64_t>(info.memorySizeMB)};
    }
  }
  if ((ret == NVML_ERROR_FUNCTION_NOT_FOUND || ret == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) &&
      api.gi_profile_info != nullptr) {
    nvmlGpuInstanceProfileInfo_t info{};
    ret = api.gi_profile_info(device, index, &info);
    if (ret == NVML_SUCCESS) {
      out = {index, info.id, info.sliceCount, info.instanceCount, static_cast<std::int64_t>(info.memorySizeMB)};
    }
  }
  return ret;
}

nvmlReturn_t ci_profile(const Api& api, nvmlGpuInstance_t instance, unsigned index, ProfileInfo& out) {
  nvmlReturn_t ret = NVML_ERROR_FUNCTION_NOT_FOUND;
  if (api.ci_profile_info_v != nullptr) {
    nvmlComputeInstanceProfileInfo_v2_t info{};
    info.version = nvmlComputeInstanceProfileInfo_v2;
    ret = api.ci_profile_info_v(instance, index, NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED, &info);
    if (ret == NVML_SUCCESS) out = {index, info.id, info.sliceCount, info.instanceCount, 0};
  }
  if ((ret == NVML_ERROR_FUNCTION_NOT_FOUND || ret == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) &&
      api.ci_profile_info != nullptr) {
    nvmlComputeInstanceProfileInfo_t info{};
    ret = api.ci_profile_info(instance, index, NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED, &info);
    if (ret == NVML_SUCCESS) out = {index, info.id, info.sliceCount, info.instanceCount, 0};
  }
  return ret;
}

template <typename Query>
std::vector<ProfileInfo> enumerate_profiles(const Library& lib, int gpu, const char* function, Query query) {
  std::vector<ProfileInfo> profiles;
  for (unsigned index = 0; index < kMaxProfileIndex; ++index) {
    ProfileInfo info;
    const nvmlReturn_t ret = query(index, info);
    if (ret == NVML_ERROR_INVALID_ARGUMENT) break;
    if (ret == NVML_ERROR_NOT_SUPPORTED) continue;
    lib.check(ret, function, gpu, "profile " + std::to_string(index));
    profiles.push_back(info);
  }
  return profiles;
}

std::string profile_name(const gpu::GpuModel* model, int profile_id) {
  if (model == nullptr || !model->mig) return "";
  for (const gpu::MigProfile& profile : model->mig->profiles) {
    if (profile.profile_id == profile_id) return profile.name;
  }
  return "";
}

}  // namespace

bool can_read_mig(const Api& api) {
  return api.get_mig_mode != nullptr && (api.gi_profile_info_v != nullptr || api.gi_profile_info != nullptr) &&
         api.gpu_instances != nullptr && api.gpu_instance_info != nullptr &&
         (api.ci_profile_info_v != nullptr || api.ci_profile_info != nullptr) && api.compute_instances != nullptr &&
         api.compute_instance_info != nullptr;
}

std::vector<ProfileInfo> gpu_instance_profiles(const Library& lib, nvmlDevice_t device, int gpu) {
  return enumerate_profiles(lib, gpu, "nvmlDeviceGetGpuInstanceProfileInfo",
                            [&](unsigned index, ProfileInfo& info) { return gi_profile(lib.api(), device, index, info); });
}

std::vector<ProfileInfo> compute_instance_profiles(const Library& lib, nvmlGpuInstance_t instance, int gpu) {
  return enumerate_profiles(lib, gpu, "nvmlGpuInstanceGetComputeInstanceProfileInfo",
                            [&](unsigned index, ProfileInfo& info) { return ci_profile(lib.api(), instance, index, info); });
}

std::vector<nvmlComputeInstance_t> compute_instances(const Library& lib, nvmlGpuInstance_t instance, int gpu) {
  std::vector<nvmlComputeInstance_t> all;
  for (const ProfileInfo& profile : compute_instance_profiles(lib, instance, gpu)) {
    std::vector<nvmlComputeInstance_t> found(std::max(profile.instance_count, 8U), nvmlComputeInstance_t{nullptr});
    auto count = static_cast<unsigned>(found.size());
    lib.check(lib.api().compute_instances(instance, profile.id, found.data(), &count),
              "nvmlGpuInstanceGetComputeInstances", gpu, "profile id " + std::to_string(profile.id));
    all.insert(all.end(), found.begin(), found.begin() + std::min<std::size_t>(count, found.size()));
  }
  return all;
}

std::vector<MigDevice> mig_devices(const Library& lib, nvmlDevice_t device, int gpu) {
  const Api& api = lib.api();
  std::vector<MigDevice> devices;
  if (api.max_mig_device_count == nullptr || api.mig_device_handle_by_index == nullptr ||
      api.mig_device_gpu_instance_id == nullptr || api.mig_device_compute_instance_id == nullptr) {
    return devices;
  }
  unsigned max_count = 0;
  lib.check(api.max_mig_device_count(device, &max_count), "nvmlDeviceGetMaxMigDeviceCount", gpu);
  for (unsigned index = 0; index < max_count; ++index) {
    nvmlDevice_t mig{nullptr};
    const nvmlReturn_t ret = api.mig_device_handle_by_index(device, index, &mig);
    if (ret == NVML_ERROR_NOT_FOUND) continue;  // no MIG device at this index
    lib.check(ret, "nvmlDeviceGetMigDeviceHandleByIndex", gpu, "index " + std::to_string(index));
    unsigned gi = 0, ci = 0;
    lib.check(api.mig_device_gpu_instance_id(mig, &gi), "nvmlDeviceGetGpuInstanceId", gpu);
    lib.check(api.mig_device_compute_instance_id(mig, &ci), "nvmlDeviceGetComputeInstanceId", gpu);
    devices.push_back({mig, static_cast<int>(gi), static_cast<int>(ci)});
  }
  return devices;
}

std::map<std::pair<int, int>, std::string> mig_device_uuids(const Library& lib, nvmlDevice_t device, int gpu) {
  std::map<std::pair<int, int>, std::string> uuids;
  for (const MigDevice& mig : mig_devices(lib, device, gpu)) {
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
    lib.check(lib.api().uuid(mig.handle, uuid, sizeof uuid), "nvmlDeviceGetUUID", gpu,
              "GPU instance " + std::to_string(mig.gpu_instance_id) + ", compute instance " +
                  std::to_string(mig.compute_instance_id));
    uuids[{mig.gpu_instance_id, mig.compute_instance_id}] = from_buffer(uuid);
  }
  return uuids;
}

bool mig_enabled(const Library& lib, nvmlDevice_t device, int gpu) {
  if (lib.api().get_mig_mode == nullptr) return false;
  unsigned current = NVML_DEVICE_MIG_DISABLE, pending = NVML_DEVICE_MIG_DISABLE;
  const nvmlReturn_t ret = lib.api().get_mig_mode(device, &current, &pending);
  if (ret == NVML_ERROR_NOT_SUPPORTED) return false;
  lib.check(ret, "nvmlDeviceGetMigMode", gpu);
  return current == NVML_DEVICE_MIG_ENABLE;
}

MigInstance describe_gpu_instance(const Library& lib, nvmlGpuInstance_t instance, int gpu, const gpu::GpuModel* model,
                                  const std::map<std::pair<int, int>, std::string>& uuids) {
  nvmlGpuInstanceInfo_t info{};
  lib.check(lib.api().gpu_instance_info(instance, &info), "nvmlGpuInstanceGetInfo", gpu);
  MigInstance mig;
  mig.profile_id = static_cast<int>(info.profileId);
  mig.profile = profile_name(model, mig.profile_id);
  mig.placement_start = static_cast<int>(info.placement.start);
  mig.placement_size = static_cast<int>(info.placement.size);
  mig.gpu_instance_id = static_cast<int>(info.id);
  for (nvmlComputeInstance_t ci : compute_instances(lib, instance, gpu)) {
    nvmlComputeInstanceInfo_t ci_info{};
    lib.check(lib.api().compute_instance_info(ci, &ci_info), "nvmlComputeInstanceGetInfo", gpu,
              "GPU instance " + std::to_string(info.id));
    const int id = static_cast<int>(ci_info.id);
    if (mig.compute_instance_id < 0 || id < mig.compute_instance_id) mig.compute_instance_id = id;
  }
  if (auto found = uuids.find({mig.gpu_instance_id, mig.compute_instance_id}); found != uuids.end()) {
    mig.uuid = found->second;
  }
  return mig;
}

std::vector<MigInstance> read_mig_instances(const Library& lib, nvmlDevice_t device, int gpu, const gpu::GpuModel* model) {
  const auto uuids = mig_device_uuids(lib, device, gpu);
  std::vector<MigInstance> instances;
  for (const ProfileInfo& profile : gpu_instance_profiles(lib, device, gpu)) {
    std::vector<nvmlGpuInstance_t> found(std::max(profile.instance_count, 8U), nvmlGpuInstance_t{nullptr});
    auto count = static_cast<unsigned>(found.size());
    lib.check(lib.api().gpu_instances(device, profile.id, found.data(), &count), "nvmlDeviceGetGpuInstances", gpu,
              "profile id " + std::to_string(profile.id));
    for (unsigned i = 0; i < count && i < found.size(); ++i) {
      instances.push_back(describe_gpu_instance(lib, found[i], gpu, model, uuids));
      instances.back().memory_mib = profile.memory_mib;
    }
  }
  std::sort(instances.begin(), instances.end(), [](const MigInstance& a, const MigInstance& b) {
    return a.placement_start != b.placement_start ? a.placement_start < b.placement_start
                                                  : a.gpu_instance_id < b.gpu_instance_id;
  });
  return instances;
}

}  // namespace gpupool::backend::nvml
