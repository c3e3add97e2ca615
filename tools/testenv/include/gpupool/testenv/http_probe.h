// Minimal HTTP(S) requests (libcurl) for readiness probes (the control
// plane's components, a controller's /readyz) and the etcd JSON gateway. Not
// a Kubernetes client: no retries, no redirects.
#pragma once

#include <chrono>
#include <string>

namespace gpupool::testenv {

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  std::string body;          // sent as application/json when non-empty
  std::string ca_file;       // trust only this CA (https)
  std::string bearer_token;  // Authorization header; never logged
  bool insecure = false;     // skip certificate checks (self-signed kcm/scheduler serving certs)
  std::chrono::milliseconds timeout{5000};
};

struct HttpResponse {
  long status = 0;    // 0 when no response came (error says why)
  std::string body;
  std::string error;
};

HttpResponse http_request(const HttpRequest& request);

}  // namespace gpupool::testenv
