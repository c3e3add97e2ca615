#include "gpupool/common/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace gpupool::common {

void for_each_parallel(std::size_t count, std::size_t workers, const std::function<void(std::size_t)>& fn) {
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::exception_ptr first;
  auto drain = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard lock(mu);
        if (!first) first = std::current_exception();
      }
    }
  };
  const std::size_t threads = std::min(std::max<std::size_t>(workers, 1), count);
  {
    std::vector<std::jthread> helpers;
    for (std::size_t t = 1; t < threads; ++t) helpers.emplace_back(drain);
    drain();
  }  // joined
  if (first) std::rethrow_exception(first);
}

}  // namespace gpupool::common
