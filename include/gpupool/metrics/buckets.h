// Histogram bucket layouts (finite upper bounds; +Inf is always implied).
#pragma once

#include <vector>

namespace gpupool::metrics {

// client_golang's DefBuckets: .005 .01 .025 .05 .1 .25 .5 1 2.5 5 10 (seconds).
std::vector<double> default_buckets();

// `count` bounds start, start*factor, ... computed by repeated multiplication
// exactly as client_golang's ExponentialBuckets does, so the `le` labels match
// Go exporters to the last digit (e.g. 9.999999999999999e-06). Throws
// std::invalid_argument unless start > 0, factor > 1 and count >= 1.
std::vector<double> exponential_buckets(double start, double factor, int count);

// `count` bounds start, start+width, ... Throws std::invalid_argument unless
// width > 0 and count >= 1.
std::vector<double> linear_buckets(double start, double width, int count);

}  // namespace gpupool::metrics
