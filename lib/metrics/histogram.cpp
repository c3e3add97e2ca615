#include "gpupool/metrics/histogram.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace gpupool::metrics {

Histogram::Histogram(std::shared_ptr<const std::vector<double>> bounds)
    : bounds_(std::move(bounds)), counts_(std::make_unique<std::atomic<std::uint64_t>[]>(bounds_->size() + 1)) {}

void Histogram::observe(double value) {
  const auto& bounds = *bounds_;
  std::size_t index = bounds.size();  // +Inf
  if (!std::isnan(value)) {
    index = static_cast<std::size_t>(std::lower_bound(bounds.begin(), bounds.end(), value) - bounds.begin());
  }
  counts_[index].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

std::uint64_t Histogram::count() const {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i <= bounds_->size(); ++i) total += counts_[i].load(std::memory_order_relaxed);
  return total;
}

bool Histogram::collect(ChildSnapshot& out) const {
  const std::size_t n = bounds_->size();
  out.cumulative_counts.resize(n);
  std::uint64_t running = 0;
  for (std::size_t i = 0; i < n; ++i) {
    running += counts_[i].load(std::memory_order_relaxed);
    out.cumulative_counts[i] = running;
  }
  out.count = running + counts_[n].load(std::memory_order_relaxed);
  out.sum = sum();
  return true;
}

}  // namespace gpupool::metrics
