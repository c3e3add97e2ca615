// A client configuration for a ScriptedServer, for unit tests of code that
// talks to the API server through kube::Client.
#pragma once

#include <chrono>

#include "gpupool/kube/config.h"
#include "support/scripted_server.h"

namespace gpupool::test {

// No rate limit and no retries (each scripted answer reaches the code under
// test as sent), `timeout` per request, the server's CA when it serves TLS.
kube::RestConfig scripted_config(const ScriptedServer& server, std::chrono::milliseconds timeout);

}  // namespace gpupool::test
