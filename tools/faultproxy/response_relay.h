// Relays one response from the upstream to the client, byte for byte and as
// it arrives: the head as received, then the body framed by Content-Length,
// chunked encoding (passed through, so each watch event reaches the client
// as soon as its chunk arrives) or the end of the connection. Interim 1xx
// responses are relayed before the final one.
#pragma once

#include <cstdint>
#include <string>

#include "gpupool/netutil/socket_stream.h"

namespace gpupool::faultproxy {

struct RelayResult {
  enum class End {
    Complete,    // the whole response reached the client
    NoResponse,  // the upstream closed or failed before sending a byte; the client got nothing
    Failed,      // the upstream failed mid-response or sent garbage; the client got part of it (or nothing)
    ClientGone,  // the client closed, or a write to it failed
    CutByFault,  // `cut_after_bytes` reached the client
  };
  End end = End::Failed;
  // Complete: the response allows another exchange on both connections (not
  // "Connection: close", not delimited by the end of the connection).
  bool keep_alive = false;
  // Complete: the upstream connection may carry the next request (keep_alive,
  // and no stray bytes followed the response).
  bool upstream_reusable = false;
  std::string error;  // Failed: why
};

// `upstream_buffer` holds bytes already read from the upstream (normally
// none) and keeps what was read past the response. `head_request`: the
// request was HEAD (no body follows whatever the headers say).
// `cut_after_bytes` > 0: stop (CutByFault) once that many bytes were written
// to the client. While waiting on the upstream, a client that hangs up ends
// the relay (ClientGone); a shutdown of either socket ends it at once.
RelayResult relay_response(netutil::SocketStream& upstream, std::string& upstream_buffer,
                           netutil::SocketStream& client, bool head_request, std::uint64_t cut_after_bytes);

}  // namespace gpupool::faultproxy
