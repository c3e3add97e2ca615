#include "gpupool/metrics/buckets.h"

#include <stdexcept>

namespace gpupool::metrics {

std::vector<double> default_buckets() { return {.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}; }

std::vector<double> exponential_buckets(double start, double factor, int count) {
  if (!(start > 0) || !(factor > 1) || count < 1) {
    throw std::invalid_argument("metrics: exponential buckets need start > 0, factor > 1 and count >= 1");
  }
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    out.push_back(start);
    start *= factor;
  }
  return out;
}

std::vector<double> linear_buckets(double start, double width, int count) {
  if (!(width > 0) || count < 1) {
    throw std::invalid_argument("metrics: linear buckets need width > 0 and count >= 1");
  }
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    out.push_back(start);
    start += width;
  }
  return out;
}

}  // namespace gpupool::metrics
