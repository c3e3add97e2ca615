// One connection, plain TCP or TLS, server or client side, for the loopback
// test servers and the fault-injecting proxy.
//
// Blocking reads and writes, bounded by the socket's SO_RCVTIMEO/SO_SNDTIMEO;
// another thread interrupts them with ::shutdown(fd, SHUT_RDWR). The stream
// never closes the descriptor: whoever accepted or connected it does, after
// the stream is gone. Writes never raise SIGPIPE in the calling thread
// (MSG_NOSIGNAL for plain sockets; callers doing TLS block SIGPIPE in their
// thread, see tcp.h). One thread uses a stream at a time.
#pragma once

#include <openssl/ssl.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace gpupool::netutil {

class SocketStream {
 public:
  // `tls` null: plain TCP. The context decides the side (make_server_tls_context
  // or make_client_tls_context, tls_context.h). The descriptor stays owned by
  // the caller.
  SocketStream(int fd, SSL_CTX* tls);
  ~SocketStream();
  SocketStream(const SocketStream&) = delete;
  SocketStream& operator=(const SocketStream&) = delete;

  // Server side. TLS: runs the server handshake; false when it fails. Plain: true.
  bool handshake();
  // Client side. TLS: sends SNI for a DNS name, runs the handshake and
  // verifies the peer certificate against the context's CAs and `host` (a
  // DNS name or an IP address); false (with `error` saying why, when given)
  // when any of that fails. Plain: true.
  bool connect_handshake(const std::string& host, std::string* error = nullptr);

  // Appends what arrives (up to `max` bytes, at most 16 KiB) to `buffer`.
  // False on end of stream, error, timeout or shutdown.
  bool read_some(std::string& buffer, std::size_t max = kReadSize);
  // Writes all of `data`; false when the peer is gone or the write timed out.
  bool write_all(std::string_view data);
  // TLS: bytes already decrypted and waiting, which poll() on fd() does not see.
  bool has_buffered_data() const;
  int fd() const { return fd_; }

  // Orderly end: TLS close_notify, then FIN, then drains what the peer still
  // sends until it closes (at most 1 s and 1 MiB).
  void close_gracefully();
  // Abrupt end, as when a connection dies: FIN without TLS close_notify.
  void cut();

  static constexpr std::size_t kReadSize = 16 * 1024;

 private:
  int fd_;
  SSL* ssl_ = nullptr;
};

}  // namespace gpupool::netutil
