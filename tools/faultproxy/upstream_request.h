// The bytes the fault proxy sends upstream for a client's request.
#pragma once

#include <string>

#include "gpupool/netutil/http_request_reader.h"

namespace gpupool::faultproxy {

// "METHOD target HTTP/1.1", the client's header fields except the hop-by-hop
// ones (Connection and the fields it lists, Keep-Alive, Proxy-Connection, TE,
// Trailer, Upgrade) and those the proxy handles itself (Expect, and
// Transfer-Encoding / Content-Length: the body goes decoded, with a
// Content-Length whenever the client sent a body or framing, or the method
// usually has a body), then "Connection: close" when the client is not
// keeping the connection alive, then the body.
std::string upstream_request(const netutil::RecordedRequest& request, bool keep_alive);

}  // namespace gpupool::faultproxy
