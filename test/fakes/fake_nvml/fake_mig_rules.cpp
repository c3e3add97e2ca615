// MIG rules of the fake driver, taken from the catalog (gpu::check_layout).
#include "fake_mig_rules.h"

#include <algorithm>
#include <cstdio>

#include "gpupool/gpu/mig_planner.h"

namespace fake_nvml {
namespace {

using gpupool::gpu::GpuModel;
using gpupool::gpu::MigProfile;

bool has_media_engines(const MigProfile& p) { return p.media_extensions; }

// The attribute part of a catalog name: "+me", "+me.all", "+gfx", "-me" or "".
std::string attribute_of(const MigProfile& p) {
  const auto at = p.name.find_first_of("+-");
  return at == std::string::npos ? "" : p.name.substr(at);
}

// NVML_GPU_INSTANCE_PROFILE_* of a catalog profile (the index real drivers
// use for that name); -1 when none fits.
int nvml_index(const GpuModel& model, const MigProfile& p) {
  const std::string attribute = attribute_of(p);
  const int slices = p.compute_slices;
  if (attribute == "+me") {
    return slices == 1 ? int(NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1) : slices == 2 ? int(NVML_GPU_INSTANCE_PROFILE_2_SLICE_REV1) : -1;
  }
  if (attribute == "+me.all") {
    return slices == 1 ? int(NVML_GPU_INSTANCE_PROFILE_1_SLICE_ALL_ME) : slices == 2 ? int(NVML_GPU_INSTANCE_PROFILE_2_SLICE_ALL_ME) : -1;
  }
  if (attribute == "-me") {
    return slices == 1 ? int(NVML_GPU_INSTANCE_PROFILE_1_SLICE_NO_ME) : slices == 2 ? int(NVML_GPU_INSTANCE_PROFILE_2_SLICE_NO_ME) : -1;
  }
  if (attribute == "+gfx") {
    switch (slices) {
      case 1: return NVML_GPU_INSTANCE_PROFILE_1_SLICE_GFX;
      case 2: return NVML_GPU_INSTANCE_PROFILE_2_SLICE_GFX;
      case 4: return NVML_GPU_INSTANCE_PROFILE_4_SLICE_GFX;
      default: return -1;
    }
  }
  if (!attribute.empty()) return -1;
  if (p.compute_slices == 1) {
    for (const MigProfile& other : model.mig->profiles) {
      if (other.compute_slices == 1 && attribute_of(other).empty() && other.memory_slices < p.memory_slices) {
        return NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2;
      }
    }
  }
  switch (p.compute_slices) {
    case 1: return NVML_GPU_INSTANCE_PROFILE_1_SLICE;
    case 2: return NVML_GPU_INSTANCE_PROFILE_2_SLICE;
    case 3: return NVML_GPU_INSTANCE_PROFILE_3_SLICE;
    case 4: return NVML_GPU_INSTANCE_PROFILE_4_SLICE;
    case 6: return NVML_GPU_INSTANCE_PROFILE_6_SLICE;
    case 7: return NVML_GPU_INSTANCE_PROFILE_7_SLICE;
    case 8: return NVML_GPU_INSTANCE_PROFILE_8_SLICE;
    default: return -1;
  }
}

gpupool::gpu::Layout layout_of(const Gpu& gpu) {
  gpupool::gpu::Layout layout;
  for (const auto& gi : gpu.instances) {
    layout.push_back({gi->profile->name, static_cast<int>(gi->start), static_cast<int>(gi->size)});
  }
  return layout;
}

bool has_processes(const Gpu& gpu, unsigned gi_id) {
  return std::any_of(gpu.processes.begin(), gpu.processes.end(),
                     [&](const Process& p) { return p.gpu_instance_id == static_cast<int>(gi_id); });
}

}  // namespace

const MigProfile* profile_for_index(const GpuModel& model, unsigned index) {
  if (!model.mig) return nullptr;
  for (const MigProfile& p : model.mig->profiles) {
    if (nvml_index(model, p) == static_cast<int>(index)) return &p;
  }
  return nullptr;
}

const MigProfile* profile_by_id(const GpuModel& model, unsigned profile_id) {
  if (!model.mig) return nullptr;
  for (const MigProfile& p : model.mig->profiles) {
    if (p.profile_id == static_cast<int>(profile_id)) return &p;
  }
  return nullptr;
}

nvmlGpuInstanceProfileInfo_t profile_info(const MigProfile& p) {
  nvmlGpuInstanceProfileInfo_t info{};
  info.id = static_cast<unsigned>(p.profile_id);
  info.isP2pSupported = 0;
  info.sliceCount = static_cast<unsigned>(p.compute_slices);
  info.instanceCount = static_cast<unsigned>(p.max_count);
  info.multiprocessorCount = 14 * info.sliceCount;
  info.copyEngineCount = static_cast<unsigned>(p.memory_slices);
  info.decoderCount = has_media_engines(p) ? 1 : 0;
  info.encoderCount = 0;
  info.jpegCount = has_media_engines(p) ? 1 : 0;
  info.ofaCount = has_media_engines(p) ? 1 : 0;
  info.memorySizeMB = static_cast<unsigned long long>(p.memory_mib);
  return info;
}

unsigned compute_profile_slices(unsigned index, unsigned gi_slices) {
  unsigned slices = 0;
  switch (index) {
    case NVML_COMPUTE_INSTANCE_PROFILE_1_SLICE: slices = 1; break;
    case NVML_COMPUTE_INSTANCE_PROFILE_2_SLICE: slices = 2; break;
    case NVML_COMPUTE_INSTANCE_PROFILE_3_SLICE: slices = 3; break;
    case NVML_COMPUTE_INSTANCE_PROFILE_4_SLICE: slices = 4; break;
    case NVML_COMPUTE_INSTANCE_PROFILE_7_SLICE: slices = 7; break;
    case NVML_COMPUTE_INSTANCE_PROFILE_8_SLICE: slices = 8; break;
    case NVML_COMPUTE_INSTANCE_PROFILE_6_SLICE: slices = 6; break;
    default: return 0;  // the _REV1 / _NVL variants: not offered here
  }
  return slices <= gi_slices ? slices : 0;
}

nvmlComputeInstanceProfileInfo_t compute_profile_info(unsigned index, unsigned gi_slices) {
  nvmlComputeInstanceProfileInfo_t info{};
  const unsigned slices = compute_profile_slices(index, gi_slices);
  info.id = index;
  info.sliceCount = slices;
  info.instanceCount = slices == 0 ? 0 : gi_slices / slices;
  info.multiprocessorCount = 14 * slices;
  info.sharedCopyEngineCount = 1;
  return info;
}

nvmlReturn_t create_gpu_instance(Gpu& gpu, unsigned profile_id, const nvmlGpuInstancePlacement_t& placement,
                                 GpuInstance*& created) {
  if (!gpu.model->mig || !gpu.mig_enabled()) return NVML_ERROR_NOT_SUPPORTED;
  const MigProfile* profile = profile_by_id(*gpu.model, profile_id);
  if (profile == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  const bool allowed = std::any_of(profile->placements.begin(), profile->placements.end(), [&](const auto& p) {
    return p.start == static_cast<int>(placement.start) && p.size == static_cast<int>(placement.size);
  });
  if (!allowed || placement.size != static_cast<unsigned>(profile->memory_slices)) return NVML_ERROR_INVALID_ARGUMENT;
  gpupool::gpu::Layout layout = layout_of(gpu);
  layout.push_back({profile->name, static_cast<int>(placement.start), static_cast<int>(placement.size)});
  std::sort(layout.begin(), layout.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  if (!std::holds_alternative<std::monostate>(gpupool::gpu::check_layout(*gpu.model, layout))) {
    return NVML_ERROR_INSUFFICIENT_RESOURCES;  // overlap, max count or compute slices
  }
  auto gi = std::make_unique<GpuInstance>();
  gi->parent = &gpu;
  gi->profile = profile;
  gi->start = placement.start;
  gi->size = placement.size;
  if (profile->memory_slices == gpu.model->mig->memory_slices) {
    gi->id = 0;
  } else {
    gi->id = 1;
    while (gpu.instance(gi->id) != nullptr) ++gi->id;
  }
  created = gi.get();
  gpu.instances.push_back(std::move(gi));
  return NVML_SUCCESS;
}

nvmlReturn_t create_compute_instance(State& st, GpuInstance& gi, unsigned profile_id, ComputeInstance*& created) {
  const auto gi_slices = static_cast<unsigned>(gi.profile->compute_slices);
  if (profile_id >= NVML_COMPUTE_INSTANCE_PROFILE_COUNT) return NVML_ERROR_INVALID_ARGUMENT;
  const unsigned slices = compute_profile_slices(profile_id, gi_slices);
  if (slices == 0) return NVML_ERROR_NOT_SUPPORTED;
  unsigned used = 0;
  for (const auto& ci : gi.compute) used += ci->size;
  if (used + slices > gi_slices) return NVML_ERROR_INSUFFICIENT_RESOURCES;
  auto ci = std::make_unique<ComputeInstance>();
  ci->parent = &gi;
  ci->profile_id = profile_id;
  ci->start = used;
  ci->size = slices;
  while (std::any_of(gi.compute.begin(), gi.compute.end(), [&](const auto& other) { return other->id == ci->id; })) {
    ++ci->id;
  }
  char uuid[64];
  std::snprintf(uuid, sizeof uuid, "MIG-1d3c9a4e-2b7f-5c60-9e21-%012llx", ++st.mig_serial);
  ci->uuid = uuid;
  created = ci.get();
  gi.compute.push_back(std::move(ci));
  return NVML_SUCCESS;
}

nvmlReturn_t destroy_gpu_instance(GpuInstance& gi) {
  Gpu& gpu = *gi.parent;
  if (!gi.compute.empty() || has_processes(gpu, gi.id)) return NVML_ERROR_IN_USE;
  std::erase_if(gpu.instances, [&](const auto& other) { return other.get() == &gi; });
  return NVML_SUCCESS;
}

nvmlReturn_t destroy_compute_instance(ComputeInstance& ci) {
  GpuInstance& gi = *ci.parent;
  if (has_processes(*gi.parent, gi.id)) return NVML_ERROR_IN_USE;
  std::erase_if(gi.compute, [&](const auto& other) { return other.get() == &ci; });
  return NVML_SUCCESS;
}

nvmlReturn_t set_mig_mode(Gpu& gpu, unsigned mode, nvmlReturn_t& activation) {
  if (!gpu.model->mig) return NVML_ERROR_NOT_SUPPORTED;
  if (mode != NVML_DEVICE_MIG_ENABLE && mode != NVML_DEVICE_MIG_DISABLE) return NVML_ERROR_INVALID_ARGUMENT;
  gpu.mig_pending = mode;
  if (mode == gpu.mig_current) {
    activation = NVML_SUCCESS;
  } else if (gpu.in_use || !gpu.processes.empty() || !gpu.instances.empty()) {
    activation = NVML_ERROR_IN_USE;  // the reset that activates the mode cannot happen now
  } else {
    gpu.mig_current = mode;
    activation = NVML_SUCCESS;
  }
  return NVML_SUCCESS;
}

nvmlReturn_t reset_gpu(Gpu& gpu) {
  if (gpu.in_use || !gpu.processes.empty()) return NVML_ERROR_IN_USE;
  gpu.mig_current = gpu.mig_pending;
  gpu.instances.clear();  // MIG instances do not survive a GPU reset
  return NVML_SUCCESS;
}

}  // namespace fake_nvml
