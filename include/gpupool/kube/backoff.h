// Exponential backoff with jitter, capped, as used between retries and
// watch reconnects. Not thread-safe: one per retry loop.
#pragma once

#include <chrono>
#include <cstdint>
#include <random>

namespace gpupool::kube {

class Backoff {
 public:
  using Duration = std::chrono::steady_clock::duration;
  // Delays grow base, 2*base, 4*base ... up to cap; each is jittered into
  // [d/2, d) so that many clients do not retry in lockstep.
  Backoff(Duration base, Duration cap, uint64_t seed = std::random_device{}());

  Duration next();
  void reset() { attempt_ = 0; }
  int attempts() const { return attempt_; }

 private:
  Duration base_;
  Duration cap_;
  int attempt_ = 0;
  std::mt19937_64 rng_;
};

}  // namespace gpupool::kube
