// Waiting for the API server at a process's start: a controller started
// while the API server restarts (or before it is up) should wait for it, as
// it would for any later outage, instead of exiting on its first refusal.
#pragma once

#include <optional>
#include <stop_token>
#include <string>

#include "gpupool/kube/client.h"

namespace gpupool::kube {

// GETs `path` until the API server answers it. Transient failures (no
// connection, a cut or timeout, 429, 5xx) are retried with jittered backoff
// from 500 ms up to 10 s, each logged with the reason; any other answer
// (401, 403, 404, ...) is thrown at once as ApiError. Returns the body, or
// std::nullopt when `stop` fired first.
std::optional<std::string> get_when_reachable(Client& client, const std::string& path, std::stop_token stop);

}  // namespace gpupool::kube
