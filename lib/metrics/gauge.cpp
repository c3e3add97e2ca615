#include "gpupool/metrics/gauge.h"

namespace gpupool::metrics {

bool Gauge::collect(ChildSnapshot& out) const {
  out.value = value();
  return true;
}

}  // namespace gpupool::metrics
