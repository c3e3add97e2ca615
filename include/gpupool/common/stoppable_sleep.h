// Sleeping that a std::stop_token cuts short, for loops that poll.
#pragma once

#include <chrono>
#include <stop_token>

namespace gpupool::common {

// Sleeps for `d` unless `stop` is requested first; false when it was.
bool sleep_for(std::chrono::milliseconds d, std::stop_token stop);

}  // namespace gpupool::common
