// The server side of one accepted connection, plain TCP or TLS, for the
// scripted test server.
//
// Blocking reads and writes, bounded by the socket's SO_RCVTIMEO/SO_SNDTIMEO;
// another thread interrupts them with ::shutdown(fd, SHUT_RDWR). The stream
// never closes the descriptor: whoever accepted it does, after the stream is
// gone. Writes never raise SIGPIPE in the calling thread (MSG_NOSIGNAL for
// plain sockets; callers doing TLS block SIGPIPE in their thread).
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <string>
#include <string_view>

#include "support/tls_certs.h"

namespace gpupool::test {

struct SslCtxFree {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxFree>;

// A TLS 1.2+ server context with `certs`' server certificate and key; ALPN
// selects http/1.1 and nothing else. Throws std::runtime_error on failure.
SslCtxPtr make_server_tls_context(const TestCertificates& certs);

class SocketStream {
 public:
  // `tls` null: plain TCP. The descriptor stays owned by the caller.
  SocketStream(int fd, SSL_CTX* tls);
  ~SocketStream();
  SocketStream(const SocketStream&) = delete;
  SocketStream& operator=(const SocketStream&) = delete;

  // TLS: runs the server handshake; false when it fails. Plain: true.
  bool handshake();
  // Appends what arrives (up to 16 KiB) to `buffer`. False on end of stream,
  // error, timeout or shutdown.
  bool read_some(std::string& buffer);
  // Writes all of `data`; false when the peer is gone or the write timed out.
  bool write_all(std::string_view data);
  // Orderly end: TLS close_notify, then FIN, then drains what the peer still
  // sends until it closes (at most 1 s and 1 MiB).
  void close_gracefully();
  // Abrupt end, as when a connection dies: FIN without TLS close_notify.
  void cut();

 private:
  int fd_;
  SSL* ssl_ = nullptr;
};

}  // namespace gpupool::test
