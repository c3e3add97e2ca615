// A monotonically increasing value (one child of a counter family).
// Increments are lock-free atomics; safe from any thread.
#pragma once

#include <atomic>

#include "gpupool/metrics/snapshot.h"

namespace gpupool::metrics {

class Counter {
 public:
  static constexpr MetricKind kKind = MetricKind::Counter;

  Counter() = default;
  Counter(const Counter&) = delete;
  Counter& operator=(const Counter&) = delete;

  // Adds `amount`, which must be >= 0 (std::invalid_argument otherwise, NaN
  // included: a counter never goes down).
  void inc(double amount = 1.0);
  double value() const { return value_.load(std::memory_order_relaxed); }

  // Fills `out.value`; always true (see Family::collect).
  bool collect(ChildSnapshot& out) const;

 private:
  std::atomic<double> value_{0.0};
};

}  // namespace gpupool::metrics
