// clock_event_reason_names (backend.h): NVML's clock event mask as names.
#include "gpupool/backend/backend.h"

namespace gpupool::backend {

std::vector<std::string> clock_event_reason_names(std::uint64_t nvml_mask) {
  std::vector<std::string> names;
  for (const ClockEventReason& reason : kClockEventReasons) {
    if ((nvml_mask & reason.nvml_bit) != 0) names.emplace_back(reason.name);
  }
  return names;
}

}  // namespace gpupool::backend
