#include "gpupool/kube/rate_limiter.h"

#include <algorithm>
#include <thread>

namespace gpupool::kube {

TokenBucket::TokenBucket(double qps, int burst, std::function<Clock::time_point()> now)
    : qps_(qps), burst_(std::max(burst, 1)), now_(std::move(now)), tokens_(std::max(burst, 1)), last_(now_()) {}

void TokenBucket::refill(Clock::time_point now) {
  if (now > last_) {
    std::chrono::duration<double> elapsed = now - last_;
    tokens_ = std::min<double>(burst_, tokens_ + elapsed.count() * qps_);
    last_ = now;
  }
}

bool TokenBucket::try_acquire() {
  if (qps_ <= 0) return true;
  std::lock_guard lock(mu_);
  refill(now_());
  if (tokens_ >= 1.0) {
    tokens_ -= 1.0;
    return true;
  }
  return false;
}

TokenBucket::Clock::duration TokenBucket::reserve() {
  if (qps_ <= 0) return Clock::duration::zero();
  std::lock_guard lock(mu_);
  refill(now_());
  tokens_ -= 1.0;  // may go negative: later callers queue behind this reservation
  if (tokens_ >= 0) return Clock::duration::zero();
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(-tokens_ / qps_));
}

void TokenBucket::acquire() {
  auto wait = reserve();
  if (wait > Clock::duration::zero()) std::this_thread::sleep_for(wait);
}

}  // namespace gpupool::kube
