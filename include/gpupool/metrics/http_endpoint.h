// A small HTTP server for scrapes and probes, as controller-runtime's metrics
// server (--metrics-bind-address) and health probe server
// (--health-probe-bind-address) are; the two may share one endpoint or have
// one each on different ports:
//
//   HttpEndpoint metrics(":8080");
//   metrics.serve_metrics(default_registry());         // GET /metrics
//   HttpEndpoint probes(":8081");
//   probes.serve_checks("/healthz", healthz);           // GET /healthz[/<check>]
//   probes.serve_checks("/readyz", readyz);             // GET /readyz[/<check>]
//   metrics.start(); probes.start();
//
// /metrics answers 200 with the registry in the text format (Content-Type
// text/plain; version=0.0.4; charset=utf-8, gzip when the client accepts it);
// check paths answer as health_checks.h describes; anything else 404. HEAD
// is answered like GET. Served by cpp-httplib on a few worker threads.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "gpupool/metrics/health_checks.h"
#include "gpupool/metrics/registry.h"

namespace gpupool::metrics {

class HttpEndpoint {
 public:
  // `bind_address` as in bind_address.h ("0" disables the endpoint: start()
  // and stop() then do nothing). Throws std::invalid_argument if malformed.
  explicit HttpEndpoint(std::string_view bind_address);
  ~HttpEndpoint();  // stop()
  HttpEndpoint(const HttpEndpoint&) = delete;
  HttpEndpoint& operator=(const HttpEndpoint&) = delete;

  // Routes, added before start() (std::logic_error after). `path` is an
  // absolute path of letters, digits and "/_.-". The registry and the checks
  // are used by reference and must outlive the endpoint.
  void serve_metrics(const Registry& registry, std::string path = "/metrics");
  void serve_checks(std::string path, const HealthChecks& checks);

  // Binds the socket (std::runtime_error naming the address when it cannot,
  // e.g. the port is taken: the socket is not shared with other listeners)
  // and returns once connections are being accepted. Once per endpoint.
  void start();

  // Stops accepting at once, then waits for requests in progress and joins
  // the server's threads. A client that holds a connection open without
  // sending delays this by at most the 1 s keep-alive timeout, one that
  // stalls mid-request or mid-response by at most the 5 s I/O timeout.
  // Idempotent.
  void stop();

  bool enabled() const;
  // The port bound by start() (the kernel's choice for port 0); 0 before
  // start() or when disabled.
  int port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpupool::metrics
