#include "gpupool/common/stoppable_sleep.h"

#include <condition_variable>
#include <mutex>

namespace gpupool::common {

bool sleep_for(std::chrono::milliseconds d, std::stop_token stop) {
  std::mutex m;
  std::condition_variable_any cv;
  std::unique_lock lock(m);
  cv.wait_for(lock, stop, d, [] { return false; });
  return !stop.stop_requested();
}

}  // namespace gpupool::common
