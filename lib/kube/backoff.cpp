#include "gpupool/kube/backoff.h"

#include <algorithm>

namespace gpupool::kube {

Backoff::Backoff(Duration base, Duration cap, uint64_t seed) : base_(base), cap_(cap), rng_(seed) {}

Backoff::Duration Backoff::next() {
  Duration d = base_;
  for (int i = 0; i < attempt_ && d < cap_; ++i) d *= 2;
  d = std::min(d, cap_);
  if (attempt_ < 62) ++attempt_;
  auto half = d.count() / 2;
  if (half <= 0) return d;
  std::uniform_int_distribution<Duration::rep> dist(0, half - 1);
  return Duration(half + dist(rng_));
}

}  // namespace gpupool::kube
