// The HTTP layer under the REST client: one interface, a libcurl
// implementation, and test doubles in test/. Knows nothing of Kubernetes
// beyond TLS and credentials.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/kube/config.h"

namespace gpupool::kube {

struct HttpRequest {
  std::string method;  // GET, POST, PUT, PATCH, DELETE
  std::string url;     // absolute
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // Whole-request limit; zero means none (watches: the server's timeoutSeconds
  // ends them, and a low-speed limit detects dead connections).
  std::chrono::milliseconds timeout{0};
};

struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
  int http_major = 1;         // 2 when HTTP/2 was negotiated
  long new_connections = 0;   // connections this request had to open (0 when one was reused)
};

// Streaming callbacks: return false to stop the transfer (it then ends with a
// TransportError of kind Aborted).
struct StreamHandler {
  // Once the answer's headers are in (before any body: a watch may be quiet
  // for minutes).
  std::function<bool(int status, const std::map<std::string, std::string>& headers)> on_headers;
  std::function<bool(std::string_view chunk)> on_data;
  // Polled about once a second while the stream is idle; true aborts it.
  std::function<bool()> cancelled;
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // Sends a request and buffers the answer. Throws TransportError when no
  // HTTP answer came.
  virtual HttpResponse send(const HttpRequest& request) = 0;
  // Sends a request and hands the body over as it arrives, never buffering it
  // whole. Returns the HTTP status. Throws TransportError on connection errors,
  // including a connection cut before the body ended.
  virtual int stream(const HttpRequest& request, const StreamHandler& handler) = 0;
};

// libcurl with OpenSSL: TLS verification per `config.tls`, client
// certificates and bearer tokens from `config.credentials`, connections
// reused (HTTP/2 where the server offers it).
std::shared_ptr<HttpTransport> make_curl_transport(const RestConfig& config);

}  // namespace gpupool::kube
