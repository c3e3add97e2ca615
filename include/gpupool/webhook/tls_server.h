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
// Paths that have no handler, and methods other than POST, answer 404. A
// handler that throws answers 500 (logged with the path, never the body). The
// server's threads block SIGPIPE, so a client that goes away mid-response
// costs an EPIPE, not the process.
//
// Hostile or broken clients (anyone who can reach the port) cannot take the
// server down or keep it from answering others for long; see the limits in
// TlsServerOptions. Requests are refused from their headers, before any of
// the body is read, and the connection is closed once the answer is written:
// 413 for a Content-Length over max_request_bytes, 411 for a POST without a
// Content-Length or any request with a Transfer-Encoding (kube-apiserver
// always sends the length; a chunked or unterminated body would be read
// without bound), 415 with a Content-Encoding (a compressed body could expand
// without bound), 400 for a malformed or repeated Content-Length. A
// connection whose request does not arrive in time, or whose request line and
// headers run over their limit, is dropped without an answer.
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
  // Connections served at once, one thread each (at least 1). A connection
  // holds its thread from the handshake until it closes, kept alive or not,
  // so this bounds what slow clients can hold: each for about
  // request_timeout per request. Threads start as connections come and end
  // after 30 s with nothing to do. With every thread taken, a new connection
  // ends the connection idle longest (see keep_alive_timeout).
  std::size_t worker_threads = 64;
  // Accepted connections waiting for a thread (at least 1); beyond this the
  // server stops accepting until one is taken, so a flood of connections
  // cannot use up the process's file descriptors. kube-apiserver opens a few
  // connections per webhook and keeps them alive.
  std::size_t max_pending_connections = 128;
  // Largest request body. kube-apiserver admits objects of up to 3 MiB (its
  // request body limit) and an AdmissionReview of an UPDATE carries the
  // object and the old object, with some JSON around them: 8 MiB. A larger
  // Content-Length is answered 413 before any of the body is read.
  std::size_t max_request_bytes = 8 * 1024 * 1024;
  // Request line and headers, as received (TLS records): kube-apiserver
  // sends under 1 KiB. A connection going over is dropped.
  std::size_t max_header_bytes = 64 * 1024;
  // A request must have arrived whole (handshake, headers, body) this long
  // after the connection was accepted, or after the previous answer plus
  // keep_alive_timeout; otherwise the connection is dropped. kube-apiserver
  // gives a webhook call 10 s by default (30 s at most) and sends a request
  // at once. The time a handler takes does not count.
  std::chrono::milliseconds request_timeout{std::chrono::seconds(10)};
  // An idle kept-alive connection is closed after this. Longer than
  // kube-apiserver keeps an idle connection to a webhook (client-go's 90 s),
  // so the client closes first: a server closing it first races with a
  // request the client sends on it at that moment, which kube-apiserver does
  // not retry (a POST) and refuses with a 500 "broken pipe" or EOF (as Go
  // webhook servers, which never close idle connections, leave it to the
  // client). Idle connections are still ended when a new connection would
  // otherwise wait for a thread, and at stop().
  std::chrono::seconds keep_alive_timeout{120};
  // A handshake, read or write making no progress this long is abandoned.
  std::chrono::seconds io_timeout{10};
  // Called for each connection accepted (on the accepting thread; quick and
  // thread-safe), e.g. a counter: clients that reuse their connections, as
  // kube-apiserver does, make it climb only as they open more.
  std::function<void()> on_connection;
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

  // Stops accepting at once, lets requests in progress finish, ends idle
  // connections, and joins the server's threads (waiting at most
  // request_timeout for stalled connections). Connections accepted but not
  // yet started are dropped. Idempotent.
  void stop();

  // Replaces the certificate for new handshakes. Throws CertificateError, and
  // keeps serving the current one, when the pair does not parse or match.
  void set_certificate(std::string_view cert_pem, std::string_view key_pem);

  // The current certificate's serial number (as CertificateInfo::serial_hex).
  std::string certificate_serial() const;

  // The port bound by start() (the kernel's choice for port 0); 0 before.
  int port() const;

  // Connections dropped so far: late, over the header limit, or still
  // waiting for a thread when stop() was called.
  std::size_t dropped_connections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpupool::webhook
