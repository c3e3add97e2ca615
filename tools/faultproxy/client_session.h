// Serving one client connection of the fault proxy: read a request, decide
// its fault, then answer it, cut, or forward it upstream and relay the
// response; again while the connection stays alive.
#pragma once

#include "connection_registry.h"
#include "proxy_state.h"

namespace gpupool::faultproxy {

// Runs on the connection's own thread until the connection ends (client
// closed or idle, Connection: close, a cut, a failure). Never throws.
void serve_client(ProxyState& state, Link& link);

}  // namespace gpupool::faultproxy
