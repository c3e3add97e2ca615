// A value that goes up and down (one child of a gauge family). Updates are
// lock-free atomics; safe from any thread.
#pragma once

#include <atomic>

#include "gpupool/metrics/snapshot.h"

namespace gpupool::metrics {

class Gauge {
 public:
  static constexpr MetricKind kKind = MetricKind::Gauge;

  Gauge() = default;
  Gauge(const Gauge&) = delete;
  Gauge& operator=(const Gauge&) = delete;

  void set(double value) { value_.store(value, std::memory_order_relaxed); }
  void inc(double amount = 1.0) { value_.fetch_add(amount, std::memory_order_relaxed); }
  void dec(double amount = 1.0) { value_.fetch_sub(amount, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

  // Fills `out.value`; always true (see Family::collect).
  bool collect(ChildSnapshot& out) const;

 private:
  std::atomic<double> value_{0.0};
};

}  // namespace gpupool::metrics
