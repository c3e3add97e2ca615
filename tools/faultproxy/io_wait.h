// Waiting on the fault proxy's sockets without busy loops or fixed sleeps.
// Every wait ends early when a socket is shut down (a cut, or stop()).
#pragma once

#include <chrono>

#include "gpupool/netutil/socket_stream.h"

namespace gpupool::faultproxy {

enum class Wake {
  Readable,  // `stream` has bytes, or its peer closed, or it was shut down: read to find out
  PeerGone,  // the watched stream's peer closed (or it was shut down)
  Timeout,
};

// Waits until `stream` can be read, `watched` (when not null) loses its peer,
// or `timeout` passes (a negative timeout: no limit).
Wake wait_readable(const netutil::SocketStream& stream, const netutil::SocketStream* watched,
                   std::chrono::milliseconds timeout);

// Waits `duration` unless `watched` loses its peer first; true when the whole
// duration passed.
bool sleep_unless_gone(const netutil::SocketStream& watched, std::chrono::milliseconds duration);

}  // namespace gpupool::faultproxy
