// The answers the fault proxy makes up itself: injected error statuses and
// its own errors (400 for a malformed request, 502 when the upstream cannot
// be reached), each a complete HTTP/1.1 response with a metav1.Status body
// as a kube-apiserver writes it. They carry "X-Fault-Proxy: injected" (or
// "error") so that a test can tell them from the apiserver's.
#pragma once

#include <string>
#include <string_view>

#include "gpupool/faultproxy/fault_plan.h"

namespace gpupool::faultproxy {

// The response for a Status fault on a request to `path`: reason and message
// as the apiserver words that status (409: "Operation cannot be fulfilled on
// <resource> \"<name>\": the object has been modified; ...", 429: "Too many
// requests, please try again later." with details.retryAfterSeconds, ...),
// Retry-After when fault.effective_retry_after() > 0, no body for HEAD, and
// "Connection: close" unless `keep_alive`.
std::string injected_response(const Fault& fault, std::string_view method, std::string_view path, bool keep_alive);

// The proxy's own error answer (400, 502, ...), always with "Connection: close".
std::string proxy_error_response(int status, std::string_view reason, std::string_view message);

}  // namespace gpupool::faultproxy
