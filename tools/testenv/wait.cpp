#include "gpupool/testenv/wait.h"

#include <algorithm>
#include <thread>

namespace gpupool::testenv {

bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout,
                std::chrono::milliseconds max_pause) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(20);
  for (;;) {
    if (condition()) return true;
    auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    std::this_thread::sleep_for(std::min({pause, max_pause, left}));
    pause = std::min(pause * 2, max_pause);  // capped: doubling forever overflows
  }
}

}  // namespace gpupool::testenv
