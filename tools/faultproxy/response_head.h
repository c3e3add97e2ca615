// The head of an HTTP/1.x response read from the upstream: status line and
// header fields, enough to know how the body is framed.
#pragma once

#include <string>
#include <string_view>

#include "gpupool/netutil/http_fields.h"

namespace gpupool::faultproxy {

struct ResponseHead {
  int status = 0;
  bool http10 = false;
  netutil::HeaderMap headers;  // names lower-cased
};

// Parses "HTTP/1.x NNN reason" and the field lines after it (`head` without
// its final empty line). False, with `error` set, when it is not a response head.
bool parse_response_head(std::string_view head, ResponseHead& out, std::string& error);

// Whether the connection may carry another exchange after this response:
// HTTP/1.1 without "Connection: close", HTTP/1.0 only with keep-alive.
bool keeps_alive(const ResponseHead& head);

// Whether a response to this request (HEAD or not) carries no body whatever
// its headers say: HEAD, 1xx, 204 and 304.
bool has_no_body(const ResponseHead& head, bool head_request);

}  // namespace gpupool::faultproxy
