#include "gpupool/metrics/gauge_function.h"

#include <exception>
#include <utility>

#include <spdlog/spdlog.h>

namespace gpupool::metrics {

void GaugeFunction::set(std::function<double()> fn) {
  std::lock_guard lock(mu_);
  fn_ = std::move(fn);
}

bool GaugeFunction::collect(ChildSnapshot& out) const {
  std::lock_guard lock(mu_);
  if (!fn_) return false;
  try {
    out.value = fn_();
    return true;
  } catch (const std::exception& e) {
    spdlog::warn("metrics: a gauge function threw, leaving it out of the scrape: {}", e.what());
  } catch (...) {
    spdlog::warn("metrics: a gauge function threw, leaving it out of the scrape");
  }
  return false;
}

}  // namespace gpupool::metrics
