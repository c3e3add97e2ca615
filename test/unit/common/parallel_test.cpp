#include "gpupool/common/parallel.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace gpupool::common {
namespace {

TEST(ForEachParallel, RunsEveryIndexOnce) {
  for (std::size_t workers : {0u, 1u, 3u, 64u}) {
    std::vector<std::atomic<int>> ran(50);
    for_each_parallel(ran.size(), workers, [&](std::size_t i) { ran[i]++; });
    for (std::size_t i = 0; i < ran.size(); ++i) EXPECT_EQ(ran[i].load(), 1) << "index " << i << ", workers " << workers;
  }
  for_each_parallel(0, 4, [](std::size_t) { FAIL() << "nothing to run"; });
}

TEST(ForEachParallel, RunsUpToWorkersAtOnceAndNoMore) {
  // Each call waits until 3 are inside at once: with 3 workers that happens;
  // the peak never passes 3.
  std::mutex mu;
  std::condition_variable cv;
  int inside = 0, peak = 0;
  for_each_parallel(9, 3, [&](std::size_t) {
    std::unique_lock lock(mu);
    peak = std::max(peak, ++inside);
    cv.notify_all();
    cv.wait(lock, [&] { return peak >= 3; });
    --inside;
  });
  EXPECT_EQ(peak, 3);
}

TEST(ForEachParallel, RethrowsTheFirstErrorAfterRunningTheRest) {
  std::atomic<int> ran{0};
  EXPECT_THROW(for_each_parallel(20, 4, [&](std::size_t i) {
                 ran++;
                 if (i % 5 == 0) throw std::runtime_error("job " + std::to_string(i));
               }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 20);
}

}  // namespace
}  // namespace gpupool::common
