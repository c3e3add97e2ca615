// Observations counted into cumulative buckets, with their sum and count (one
// child of a histogram family). observe() is lock-free: one atomic increment
// of the bucket the value falls in and one atomic add to the sum.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "gpupool/metrics/snapshot.h"

namespace gpupool::metrics {

class Histogram {
 public:
  static constexpr MetricKind kKind = MetricKind::Histogram;

  // `bounds`: finite, strictly increasing upper bounds (the family checks).
  explicit Histogram(std::shared_ptr<const std::vector<double>> bounds);
  Histogram(const Histogram&) = delete;
  Histogram& operator=(const Histogram&) = delete;

  // Counts `value` in the first bucket whose bound is >= value (+Inf when
  // none is, and for NaN) and adds it to the sum.
  void observe(double value);

  std::uint64_t count() const;
  double sum() const { return sum_.load(std::memory_order_relaxed); }

  // Fills cumulative_counts, count (always the +Inf bucket's count) and sum;
  // always true. Taken while observations continue, the sum may include an
  // observation the counts do not yet show, or the reverse.
  bool collect(ChildSnapshot& out) const;

 private:
  std::shared_ptr<const std::vector<double>> bounds_;
  // Non-cumulative counts: one per bound, then the +Inf bucket.
  std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;
  std::atomic<double> sum_{0.0};
};

}  // namespace gpupool::metrics
