// Exported NVML: initialisation, error strings, system versions, device handles.
#include "fake_shared.h"

using namespace fake_nvml;

namespace {

nvmlReturn_t init(const char* symbol) {
  Call call(symbol, false);
  if (call.early) return *call.early;
  ++call.st.init_count;
  return NVML_SUCCESS;
}

nvmlReturn_t device_count(const char* symbol, unsigned* count) {
  Call call(symbol);
  if (call.early) return *call.early;
  if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *count = static_cast<unsigned>(call.st.gpus.size());
  return NVML_SUCCESS;
}

nvmlReturn_t handle_by_index(const char* symbol, unsigned index, nvmlDevice_t* device) {
  Call call(symbol);
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(static_cast<int>(index));
  if (gpu == nullptr || device == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *device = handle_of(*gpu);
  return NVML_SUCCESS;
}

}  // namespace

FAKE_NVML_EXPORT nvmlReturn_t nvmlInit_v2() { return init("nvmlInit_v2"); }
FAKE_NVML_EXPORT nvmlReturn_t nvmlInit() { return init("nvmlInit"); }

FAKE_NVML_EXPORT nvmlReturn_t nvmlShutdown() {
  Call call("nvmlShutdown", false);
  if (call.early) return *call.early;
  if (call.st.init_count == 0) return NVML_ERROR_UNINITIALIZED;
  --call.st.init_count;
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT const char* nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case NVML_ERROR_ALREADY_INITIALIZED: return "Already Initialized";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_INSUFFICIENT_POWER: return "Insufficient External Power";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_TIMEOUT: return "Timeout";
    case NVML_ERROR_IRQ_ISSUE: return "Interrupt request issue";
    case NVML_ERROR_LIBRARY_NOT_FOUND: return "NVML Shared Library Not Found";
    case NVML_ERROR_FUNCTION_NOT_FOUND: return "Function Not Found";
    case NVML_ERROR_CORRUPTED_INFOROM: return "Corrupted infoROM";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    case NVML_ERROR_RESET_REQUIRED: return "GPU requires restart";
    case NVML_ERROR_OPERATING_SYSTEM: return "The operating system has blocked the request.";
    case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return "RM has detected an NVML/RM version mismatch.";
    case NVML_ERROR_IN_USE: return "In use by another client";
    case NVML_ERROR_MEMORY: return "Insufficient Memory";
    case NVML_ERROR_NO_DATA: return "No data";
    case NVML_ERROR_INSUFFICIENT_RESOURCES: return "Insufficient resources";
    case NVML_ERROR_ARGUMENT_VERSION_MISMATCH: return "Argument version mismatch";
    case NVML_ERROR_NOT_READY: return "Not ready";
    case NVML_ERROR_INVALID_STATE: return "Invalid state";
    default: return "Unknown Error";
  }
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned length) {
  Call call("nvmlSystemGetDriverVersion");
  if (call.early) return *call.early;
  return copy_out("570.133.20", version, length);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int* version) {
  return cuda_driver_version("nvmlSystemGetCudaDriverVersion", version);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* count) { return device_count("nvmlDeviceGetCount_v2", count); }
FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned* count) { return device_count("nvmlDeviceGetCount", count); }

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned index, nvmlDevice_t* device) {
  return handle_by_index("nvmlDeviceGetHandleByIndex_v2", index, device);
}
FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned index, nvmlDevice_t* device) {
  return handle_by_index("nvmlDeviceGetHandleByIndex", index, device);
}

namespace fake_nvml {

nvmlReturn_t cuda_driver_version(const char* symbol, int* version) {
  Call call(symbol);
  if (call.early) return *call.early;
  if (version == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *version = 12080;
  return NVML_SUCCESS;
}

}  // namespace fake_nvml
