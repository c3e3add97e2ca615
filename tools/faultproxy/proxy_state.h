// What the fault proxy's threads share: options, TLS contexts, the fault
// plan, the counters behind Stats and the client connections.
#pragma once

#include <atomic>
#include <cstdint>

#include "connection_registry.h"
#include "gpupool/faultproxy/fault_plan.h"
#include "gpupool/faultproxy/fault_proxy.h"
#include "gpupool/netutil/tls_context.h"
#include "upstream_target.h"

namespace gpupool::faultproxy {

struct Counters {
  std::atomic<std::uint64_t> connections{0};
  std::atomic<std::uint64_t> refused{0};
  std::atomic<std::uint64_t> requests{0};
  std::atomic<std::uint64_t> forwarded{0};
  std::atomic<std::uint64_t> injected{0};
  std::atomic<std::uint64_t> delayed{0};
  std::atomic<std::uint64_t> cut{0};
  std::atomic<std::uint64_t> upstream_errors{0};
};

struct ProxyState {
  // Parses the upstream URL and builds the TLS contexts. Throws
  // std::invalid_argument naming what is wrong.
  explicit ProxyState(Options opts);

  const Options options;
  const UpstreamTarget upstream;
  const netutil::SslCtxPtr client_tls;    // serving the clients; null: plain HTTP
  const netutil::SslCtxPtr upstream_tls;  // towards the upstream; null: plain HTTP
  FaultPlan plan;
  Counters counters;
  ConnectionRegistry connections;
};

}  // namespace gpupool::faultproxy
