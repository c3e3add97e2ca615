// The webhook's HTTPS server: POST handlers by exact path, served by
// cpp-httplib over OpenSSL with TLS 1.2 as the minimum version (TLS 1.2
// cipher suites: ECDHE with AES-GCM or ChaCha20-Poly1305 only; no
// compression, no renegotiation).
//
//   TlsServer server({.host = "0.0.0.0", .port = 9443}, cert_pem, key_pem);
//   server.handle_post("/validate", [](const HttpRequest& r) { return HttpResponse{...}; });
//   server.start();                            // returns once accepting
//   server.set_certificate(new_cert, new_key); // any time, from any thread
//
// Certificate replacement drops nothing: each handshake picks the certificate
// current when it starts (an OpenSSL certificate callback reads a
// shared_ptr swapped under a mutex), so handshakes after set_certificate()
// returns present the new certificate, and connections already established
// keep going with the old one until they close.
//
// Paths that have no handler, and methods other than POST, answer 404.
// Bodies over options.max_request_bytes answer 413. A handler that throws
// answers 500 (logged with the path, never the body). The server's threads
// block SIGPIPE, so a client that goes away mid-response costs an EPIPE, not
// the process.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace gpupool::webhook {

struct HttpRequest {
  std::string path;          // without the query
  std::string query;         // raw, without '?' (kube-apiserver sends timeout=10s)
  std::string content_type;  // the Content-Type header, as sent
  std::string body;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};

using PostHandler = std::function<HttpResponse(const HttpRequest&)>;

struct TlsServerOptions {
  std::string host = "0.0.0.0";  // an IP address to bind ("::" for all IPv6)
  int port = 9443;               // 0: the kernel picks a free port (see port())
  std::size_t worker_threads = 8;
  // kube-apiserver sends objects of up to 3 MiB, an AdmissionReview carries
  // the object and the old object.
  std::size_t max_request_bytes = 8 * 1024 * 1024;
  // An idle kept-alive connection is closed after this; stop() waits at most
  // this long for one.
  std::chrono::seconds keep_alive_timeout{5};
  // A handshake, request or response stalled this long is abandoned.
  std::chrono::seconds io_timeout{10};
};

class TlsServer {
 public:
  // The certificate (the first in cert_pem; chains are not sent: clients
  // verify against the CA in their caBundle) and its key. Throws
  // CertificateError (certificates.h) when they do not parse or do not match.
  TlsServer(TlsServerOptions options, std::string_view cert_pem, std::string_view key_pem);
  ~TlsServer();  // stop()
  TlsServer(const TlsServer&) = delete;
  TlsServer& operator=(const TlsServer&) = delete;

  // Before start() (std::logic_error after, or for a path registered twice or
  // not starting with '/'). Handlers run on the worker threads, concurrently.
  void handle_post(std::string path, PostHandler handler);

  // Binds (std::runtime_error naming the address when it cannot; the port is
  // not shared with other listeners) and returns once connections are being
  // accepted. Once per server.
  void start();

  // Stops accepting at once, lets requests in progress finish, and joins the
  // server's threads (waiting at most keep_alive_timeout for idle connections,
  // io_timeout for stalled ones). Idempotent.
  void stop();

  // Replaces the certificate for new handshakes. Throws CertificateError, and
  // keeps serving the current one, when the pair does not parse or match.
  void set_certificate(std::string_view cert_pem, std::string_view key_pem);

  // The current certificate's serial number (as CertificateInfo::serial_hex).
  std::string certificate_serial() const;

  // The port bound by start() (the kernel's choice for port 0); 0 before.
  int port() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpupool::webhook
