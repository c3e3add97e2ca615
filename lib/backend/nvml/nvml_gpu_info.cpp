// One GPU of the inventory: identity, PCI, memory, compute capability, MIG.
#include "nvml_parts.h"

namespace gpupool::backend::nvml {
namespace {

std::string device_name(const Library& lib, nvmlDevice_t device, int gpu) {
  char buffer[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
  lib.check(lib.api().name(device, buffer, sizeof buffer), "nvmlDeviceGetName", gpu);
  return from_buffer(buffer);
}

nvmlPciInfo_t pci_info(const Library& lib, nvmlDevice_t device, int gpu) {
  nvmlPciInfo_t pci{};
  lib.check(lib.api().pci_info(device, &pci), "nvmlDeviceGetPciInfo", gpu);
  return pci;
}

void read_mig(const Library& lib, nvmlDevice_t device, const gpu::GpuModel* model, GpuInfo& info) {
  const Api& api = lib.api();
  if (!can_read_mig(api)) return;
  unsigned current = 0, pending = 0;
  const nvmlReturn_t ret = api.get_mig_mode(device, &current, &pending);
  if (ret == NVML_ERROR_NOT_SUPPORTED) return;
  lib.check(ret, "nvmlDeviceGetMigMode", info.index);
  info.mig_capable = true;
  info.mig.current = current == NVML_DEVICE_MIG_ENABLE ? MigMode::enabled : MigMode::disabled;
  info.mig.pending = pending == NVML_DEVICE_MIG_ENABLE ? MigMode::enabled : MigMode::disabled;
  if (info.mig.current == MigMode::enabled) info.instances = read_mig_instances(lib, device, info.index, model);
}

}  // namespace

const gpu::GpuModel* find_model(const gpu::Catalog& catalog, const std::string& name, std::uint32_t pci_device_id) {
  if (const gpu::GpuModel* model = catalog.find_by_pci_device_id(gpu::Vendor::nvidia, pci_device_id)) return model;
  const gpu::GpuModel* model = catalog.find(name);
  return model != nullptr && model->vendor == gpu::Vendor::nvidia ? model : nullptr;
}

const gpu::GpuModel* model_of(const Library& lib, const gpu::Catalog& catalog, nvmlDevice_t device, int gpu) {
  return find_model(catalog, device_name(lib, device, gpu), pci_info(lib, device, gpu).pciDeviceId >> 16);
}

GpuInfo read_gpu(const Library& lib, const gpu::Catalog& catalog, nvmlDevice_t device, int gpu) {
  const Api& api = lib.api();
  GpuInfo info;
  info.index = gpu;
  info.vendor = gpu::Vendor::nvidia;
  info.name = device_name(lib, device, gpu);

  char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
  lib.check(api.uuid(device, uuid, sizeof uuid), "nvmlDeviceGetUUID", gpu);
  info.uuid = from_buffer(uuid);

  const nvmlPciInfo_t pci = pci_info(lib, device, gpu);
  info.pci_bus_id = from_buffer(pci.busId);
  info.pci_device_id = pci.pciDeviceId >> 16;  // the vendor id is the low half

  nvmlMemory_t memory{};
  lib.check(api.memory_info(device, &memory), "nvmlDeviceGetMemoryInfo", gpu);
  info.memory_mib = static_cast<std::int64_t>(memory.total >> 20);

  if (api.compute_capability != nullptr) {
    int major = 0, minor = 0;
    const nvmlReturn_t ret = api.compute_capability(device, &major, &minor);
    if (ret != NVML_ERROR_NOT_SUPPORTED) {
      lib.check(ret, "nvmlDeviceGetCudaComputeCapability", gpu);
      info.compute_major = major;
      info.compute_minor = minor;
    }
  }

  const gpu::GpuModel* model = find_model(catalog, info.name, info.pci_device_id);
  if (model != nullptr) info.catalog_id = model->id;
  read_mig(lib, device, model, info);
  return info;
}

}  // namespace gpupool::backend::nvml
