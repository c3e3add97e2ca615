// Polling with a deadline: how tests and helpers wait for a condition, never
// with a fixed sleep.
#pragma once

#include <chrono>
#include <functional>

namespace gpupool::testenv {

// Evaluates `condition` until it returns true or `timeout` passes; returns
// its last result. Pauses between tries start at 20 ms and grow to `max_pause`.
bool wait_until(const std::function<bool()>& condition, std::chrono::milliseconds timeout,
                std::chrono::milliseconds max_pause = std::chrono::milliseconds(250));

}  // namespace gpupool::testenv
