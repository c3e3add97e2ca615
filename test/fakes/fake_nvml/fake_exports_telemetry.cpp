// Exported NVML: the readings a metrics exporter adds to the basic ones of
// fake_exports_device.cpp (energy, clocks, clock event reasons), in the
// versions every driver since R450 has.
#include "fake_shared.h"

using namespace fake_nvml;

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long* energy) {
  Call call("nvmlDeviceGetTotalEnergyConsumption");
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || energy == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *energy = gpu->energy_mj;
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, int type, unsigned* clock) {
  Call call("nvmlDeviceGetClockInfo");
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || clock == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  switch (type) {
    case NVML_CLOCK_GRAPHICS:
    case NVML_CLOCK_SM: *clock = gpu->sm_clock_mhz; return NVML_SUCCESS;
    case NVML_CLOCK_MEM: *clock = gpu->memory_clock_mhz; return NVML_SUCCESS;
    default: return NVML_ERROR_INVALID_ARGUMENT;
  }
}

// The pre-R535 name; fake_exports_newer.cpp has nvmlDeviceGetCurrentClocksEventReasons.
FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device,
                                                                        unsigned long long* reasons) {
  return clocks_event_reasons("nvmlDeviceGetCurrentClocksThrottleReasons", device, reasons);
}

namespace fake_nvml {

nvmlReturn_t clocks_event_reasons(const char* symbol, nvmlDevice_t device, unsigned long long* reasons) {
  Call call(symbol);
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr || reasons == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *reasons = gpu->clocks_event_reasons;
  return NVML_SUCCESS;
}

}  // namespace fake_nvml
