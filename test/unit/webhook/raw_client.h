// Test helper: a raw client of the webhook server on 127.0.0.1, for sending
// what a well-behaved HTTP client never would (garbage instead of TLS, junk
// HTTP, endless headers, lying Content-Lengths). Plain TCP, or TLS without
// verifying the server (the server is not what these tests check). Every
// blocking call is bounded by a deadline; the socket closes with the object.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpupool::webhook::testing {

// SIGPIPE blocked in this thread while it lives (OpenSSL writes with write(),
// and a server that closed must cost an EPIPE, not the test process); one
// raised meanwhile is taken before the old mask is restored.
class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlocked() {
    const timespec zero{0, 0};
    while (sigtimedwait(&pipe_, nullptr, &zero) == SIGPIPE) {
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;

 private:
  sigset_t pipe_{};
  sigset_t old_{};
};

class RawClient {
 public:
  using Clock = std::chrono::steady_clock;

  // Connects (false from connected() when it could not).
  explicit RawClient(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ >= 0 && ::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) close_fd();
    // Blocking calls return every 200 ms, so the loops below keep to their deadlines.
    timeval tv{0, 200 * 1000};
    if (fd_ >= 0) {
      ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
      ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    }
  }
  ~RawClient() {
    if (ssl_ != nullptr) SSL_free(ssl_);
    if (ctx_ != nullptr) SSL_CTX_free(ctx_);
    close_fd();
  }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return fd_ >= 0; }

  // TLS handshake, bounded by `deadline`.
  bool start_tls(Clock::time_point deadline) {
    if (fd_ < 0) return false;
    const SigpipeBlocked no_sigpipe;
    ctx_ = SSL_CTX_new(TLS_client_method());
    ssl_ = ctx_ != nullptr ? SSL_new(ctx_) : nullptr;
    if (ssl_ == nullptr) return false;
    SSL_set_fd(ssl_, fd_);
    while (Clock::now() < deadline) {
      const int r = SSL_connect(ssl_);
      if (r == 1) return true;
      const int e = SSL_get_error(ssl_, r);
      if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) return false;
      wait(e == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline);
    }
    return false;
  }

  // Sends all of `bytes` (over TLS once started); false when the server
  // closed or reset the connection, or the deadline passed.
  bool send(std::string_view bytes, Clock::time_point deadline) {
    const SigpipeBlocked no_sigpipe;
    while (!bytes.empty() && fd_ >= 0 && Clock::now() < deadline) {
      long n = 0;
      if (ssl_ != nullptr) {
        const int r = SSL_write(ssl_, bytes.data(), static_cast<int>(std::min<std::size_t>(bytes.size(), 16384)));
        if (r <= 0) {
          const int e = SSL_get_error(ssl_, r);
          if (e != SSL_ERROR_WANT_WRITE && e != SSL_ERROR_WANT_READ) return false;
          continue;  // the send timeout expired; try again until the deadline
        }
        n = r;
      } else {
        n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n < 0) {
          if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) continue;
          return false;
        }
      }
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return bytes.empty();
  }

  struct Read {
    std::string bytes;
    bool closed = false;  // the server closed or reset the connection before the deadline
  };

  // Reads until the server closes the connection, `stop_after` bytes have
  // come, or the deadline passes.
  Read read_until_closed(Clock::time_point deadline, std::size_t stop_after = 1 << 20) {
    const SigpipeBlocked no_sigpipe;  // OpenSSL may answer an alert
    Read out;
    char buf[4096];
    while (Clock::now() < deadline && out.bytes.size() < stop_after) {
      if (ssl_ != nullptr && SSL_pending(ssl_) == 0 && !wait(POLLIN, deadline)) continue;
      if (ssl_ == nullptr && !wait(POLLIN, deadline)) continue;
      long n = ssl_ != nullptr ? SSL_read(ssl_, buf, sizeof buf) : ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        if (ssl_ != nullptr && SSL_get_error(ssl_, static_cast<int>(n)) == SSL_ERROR_WANT_READ) continue;
        if (ssl_ == nullptr && n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        out.closed = true;
        return out;
      }
      out.bytes.append(buf, static_cast<std::size_t>(n));
    }
    return out;
  }

  // The status code of an HTTP answer read before the deadline; 0 if none.
  int read_status(Clock::time_point deadline) {
    const Read r = read_until_closed(deadline, 12);
    if (r.bytes.size() < 12 || !r.bytes.starts_with("HTTP/1.1 ")) return 0;
    return std::stoi(r.bytes.substr(9, 3));
  }

 private:
  // Waits at most 100 ms (and not past the deadline) for `events`.
  bool wait(short events, Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd p{fd_, events, 0};
    return ::poll(&p, 1, static_cast<int>(std::clamp<long long>(left, 0, 100))) > 0;
  }

  void close_fd() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  int fd_ = -1;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
};

}  // namespace gpupool::webhook::testing
