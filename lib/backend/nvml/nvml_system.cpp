// System-wide NVML reads: driver and CUDA driver versions, device handles.
#include <string>

#include "nvml_parts.h"

namespace gpupool::backend::nvml {

std::string driver_version(const Library& lib) {
  char buffer[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
  lib.check(lib.api().driver_version(buffer, sizeof buffer), "nvmlSystemGetDriverVersion");
  return from_buffer(buffer);
}

std::string cuda_version(const Library& lib) {
  if (lib.api().cuda_driver_version == nullptr) return "";
  int version = 0;
  lib.check(lib.api().cuda_driver_version(&version), "nvmlSystemGetCudaDriverVersion");
  // NVML_CUDA_DRIVER_VERSION_MAJOR(v) = v / 1000, _MINOR(v) = (v % 1000) / 10
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::vector<nvmlDevice_t> device_handles(const Library& lib) {
  unsigned count = 0;
  lib.check(lib.api().device_count(&count), "nvmlDeviceGetCount");
  std::vector<nvmlDevice_t> devices(count, nvmlDevice_t{nullptr});
  for (unsigned i = 0; i < count; ++i) {
    lib.check(lib.api().handle_by_index(i, &devices[i]), "nvmlDeviceGetHandleByIndex", static_cast<int>(i));
  }
  return devices;
}

nvmlDevice_t device_handle(const Library& lib, int gpu) {
  nvmlDevice_t device{nullptr};
  lib.check(lib.api().handle_by_index(static_cast<unsigned>(gpu), &device), "nvmlDeviceGetHandleByIndex", gpu);
  return device;
}

}  // namespace gpupool::backend::nvml
