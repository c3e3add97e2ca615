// XID events: one NVML event set, registered for XID critical errors on every
// GPU that reports them, waited on with nvmlEventSetWait.
#include <algorithm>
#include <limits>
#include <thread>

#include "nvml_parts.h"

namespace gpupool::backend::nvml {

XidEventSource::~XidEventSource() {
  if (set_.handle != nullptr && lib_.api().event_set_free != nullptr) lib_.api().event_set_free(set_);
}

void XidEventSource::open() {
  const Api& api = lib_.api();
  open_ = true;
  if (api.event_set_create == nullptr || api.register_events == nullptr || api.event_set_wait == nullptr ||
      api.event_set_free == nullptr) {
    return;  // this library gives no events
  }
  devices_ = device_handles(lib_);
  nvmlEventSet_t set{nullptr};
  lib_.check(api.event_set_create(&set), "nvmlEventSetCreate");
  try {
    for (std::size_t i = 0; i < devices_.size(); ++i) {
      const nvmlReturn_t ret = api.register_events(devices_[i], nvmlEventTypeXidCriticalError, set);
      if (ret == NVML_ERROR_NOT_SUPPORTED) continue;  // this GPU reports no XIDs
      lib_.check(ret, "nvmlDeviceRegisterEvents", static_cast<int>(i));
    }
  } catch (const BackendError&) {
    api.event_set_free(set);
    open_ = false;  // try again next time
    throw;
  }
  set_ = set;
}

std::vector<XidEvent> XidEventSource::wait(std::chrono::milliseconds timeout) {
  if (!open_) open();
  const auto wait_ms = static_cast<unsigned>(
      std::clamp<std::chrono::milliseconds::rep>(timeout.count(), 0, std::numeric_limits<unsigned>::max()));
  if (set_.handle == nullptr) {
    std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));  // no event can come
    return {};
  }
  std::vector<XidEvent> events;
  for (unsigned ms = wait_ms;; ms = 0) {  // the first event may take the whole timeout; the rest are queued
    nvmlEventData_t data{};
    const nvmlReturn_t ret = lib_.api().event_set_wait(set_, &data, ms);
    if (ret == NVML_ERROR_TIMEOUT) break;
    lib_.check(ret, "nvmlEventSetWait");
    if ((data.eventType & nvmlEventTypeXidCriticalError) == 0) continue;
    const auto device = std::find_if(devices_.begin(), devices_.end(),
                                     [&](const nvmlDevice_t& d) { return d.handle == data.device.handle; });
    if (device == devices_.end()) continue;  // NVML names the registered handle; anything else is not ours
    XidEvent event;
    event.gpu_index = static_cast<int>(device - devices_.begin());
    event.xid = static_cast<int>(data.eventData);
    event.time_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
    events.push_back(event);
  }
  return events;
}

}  // namespace gpupool::backend::nvml
