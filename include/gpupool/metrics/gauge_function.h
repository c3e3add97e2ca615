// A gauge whose value is computed when the registry is scraped (one child of a
// gauge function family), e.g. a queue length read from its owner.
#pragma once

#include <functional>
#include <mutex>

#include "gpupool/metrics/snapshot.h"

namespace gpupool::metrics {

class GaugeFunction {
 public:
  static constexpr MetricKind kKind = MetricKind::GaugeFunction;

  GaugeFunction() = default;
  GaugeFunction(const GaugeFunction&) = delete;
  GaugeFunction& operator=(const GaugeFunction&) = delete;

  // Installs (or replaces, or with an empty function removes) the callback.
  // It runs on the scraping thread, must be thread-safe and quick, and must
  // not register metrics. Whatever it refers to must outlive it: reset it
  // before that goes away.
  void set(std::function<double()> fn);

  // Calls the callback into `out.value`. False (the child is left out of the
  // exposition) when no callback is set or it threw (logged as a warning).
  bool collect(ChildSnapshot& out) const;

 private:
  mutable std::mutex mu_;
  std::function<double()> fn_;
};

}  // namespace gpupool::metrics
