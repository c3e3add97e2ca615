// Exported NVML: event sets (XID critical errors are the events the fake raises).
#include <algorithm>
#include <chrono>

#include "fake_shared.h"

using namespace fake_nvml;

namespace {

constexpr unsigned long long kSupportedEvents = nvmlEventTypeXidCriticalError | 0x1ULL /* single-bit ECC */ |
                                                0x2ULL /* double-bit ECC */ | 0x4ULL /* P-state */ |
                                                0x10ULL /* clock */;

}  // namespace

FAKE_NVML_EXPORT nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t* set) {
  Call call("nvmlEventSetCreate");
  if (call.early) return *call.early;
  if (set == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  call.st.event_sets.push_back(std::make_unique<EventSet>());
  *set = handle_of(*call.st.event_sets.back());
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long types, nvmlEventSet_t set) {
  Call call("nvmlDeviceRegisterEvents");
  if (call.early) return *call.early;
  Gpu* gpu = call.st.gpu(device);
  EventSet* events = call.st.event_set(set);
  if (gpu == nullptr || events == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if ((types & ~kSupportedEvents) != 0) return NVML_ERROR_NOT_SUPPORTED;
  events->registered[gpu] |= types;
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t* data, unsigned timeout_ms) {
  return event_set_wait("nvmlEventSetWait", set, data, timeout_ms);
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
  Call call("nvmlEventSetFree");
  if (call.early) return *call.early;
  EventSet* events = call.st.event_set(set);
  if (events == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  std::erase_if(call.st.event_sets, [&](const auto& s) { return s.get() == events; });
  call.st.events_changed.notify_all();
  return NVML_SUCCESS;
}

namespace fake_nvml {

nvmlReturn_t event_set_wait(const char* symbol, nvmlEventSet_t set, nvmlEventData_t* data, unsigned timeout_ms) {
  Call call(symbol);
  if (call.early) return *call.early;
  if (call.st.event_set(set) == nullptr || data == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  call.st.events_changed.wait_for(call.lock, std::chrono::milliseconds(timeout_ms), [&] {
    EventSet* events = call.st.event_set(set);
    return events == nullptr || !events->queue.empty();
  });
  EventSet* events = call.st.event_set(set);
  if (events == nullptr) return NVML_ERROR_INVALID_ARGUMENT;  // freed (or reset) meanwhile
  if (events->queue.empty()) return NVML_ERROR_TIMEOUT;
  *data = events->queue.front();
  events->queue.pop_front();
  return NVML_SUCCESS;
}

}  // namespace fake_nvml
