// The work queue's rate limiters, as client-go's default_rate_limiters.go.
#include "gpupool/runtime/workqueue.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace gpupool::runtime {

using namespace std::chrono_literals;

ItemExponentialFailureRateLimiter::ItemExponentialFailureRateLimiter(Duration base_delay, Duration max_delay)
    : base_(base_delay), max_(max_delay) {}

RateLimiter::Duration ItemExponentialFailureRateLimiter::when(const std::string& item) {
  int exp = 0;
  {
    std::lock_guard lock(mu_);
    exp = failures_[item]++;
  }
  // In double, so that large exponents saturate at max instead of overflowing.
  double backoff = static_cast<double>(base_.count()) * std::pow(2.0, exp);
  if (!(backoff < static_cast<double>(max_.count()))) return max_;
  return Duration(static_cast<Duration::rep>(backoff));
}

void ItemExponentialFailureRateLimiter::forget(const std::string& item) {
  std::lock_guard lock(mu_);
  failures_.erase(item);
}

int ItemExponentialFailureRateLimiter::num_requeues(const std::string& item) const {
  std::lock_guard lock(mu_);
  auto it = failures_.find(item);
  return it == failures_.end() ? 0 : it->second;
}

BucketRateLimiter::BucketRateLimiter(double qps, int burst, std::function<kube::TokenBucket::Clock::time_point()> now)
    : bucket_(qps, burst, std::move(now)) {}

RateLimiter::Duration BucketRateLimiter::when(const std::string&) { return bucket_.reserve(); }

void BucketRateLimiter::forget(const std::string&) {}

int BucketRateLimiter::num_requeues(const std::string&) const { return 0; }

MaxOfRateLimiter::MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters)
    : limiters_(std::move(limiters)) {}

RateLimiter::Duration MaxOfRateLimiter::when(const std::string& item) {
  Duration longest = Duration::zero();
  for (auto& limiter : limiters_) longest = std::max(longest, limiter->when(item));
  return longest;
}

void MaxOfRateLimiter::forget(const std::string& item) {
  for (auto& limiter : limiters_) limiter->forget(item);
}

int MaxOfRateLimiter::num_requeues(const std::string& item) const {
  int most = 0;
  for (const auto& limiter : limiters_) most = std::max(most, limiter->num_requeues(item));
  return most;
}

std::unique_ptr<RateLimiter> default_controller_rate_limiter() {
  std::vector<std::unique_ptr<RateLimiter>> limiters;
  limiters.push_back(std::make_unique<ItemExponentialFailureRateLimiter>(5ms, 1000s));
  limiters.push_back(std::make_unique<BucketRateLimiter>(10, 100));
  return std::make_unique<MaxOfRateLimiter>(std::move(limiters));
}

}  // namespace gpupool::runtime
