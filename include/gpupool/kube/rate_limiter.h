// A token bucket limiting requests per second with a burst, as client-go's
// flowcontrol.NewTokenBucketRateLimiter does.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>

namespace gpupool::kube {

class TokenBucket {
 public:
  using Clock = std::chrono::steady_clock;
  // qps <= 0 disables limiting. The bucket starts full.
  TokenBucket(double qps, int burst, std::function<Clock::time_point()> now = Clock::now);

  // Takes one token if one is there now.
  bool try_acquire();
  // How long until a token would be available (zero if one is there); reserves
  // it, so the caller must then wait that long before acting.
  Clock::duration reserve();
  // Blocks until a token is available, then takes it.
  void acquire();

  double qps() const { return qps_; }
  int burst() const { return burst_; }

 private:
  void refill(Clock::time_point now);

  double qps_;
  int burst_;
  std::function<Clock::time_point()> now_;
  std::mutex mu_;
  double tokens_;
  Clock::time_point last_;
};

}  // namespace gpupool::kube
