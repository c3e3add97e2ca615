#include "gpupool/metrics/counter.h"

#include <stdexcept>
#include <string>

namespace gpupool::metrics {

void Counter::inc(double amount) {
  if (!(amount >= 0)) {
    throw std::invalid_argument("metrics: a counter cannot be increased by " + std::to_string(amount));
  }
  value_.fetch_add(amount, std::memory_order_relaxed);
}

bool Counter::collect(ChildSnapshot& out) const {
  out.value = value();
  return true;
}

}  // namespace gpupool::metrics
