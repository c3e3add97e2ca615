#include "gpupool/netutil/socket_stream.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/x509_vfy.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <algorithm>
#include <cerrno>

namespace gpupool::netutil {
namespace {

// True when `host` is an IPv4 or IPv6 address rather than a DNS name.
bool is_ip_address(const std::string& host) {
  unsigned char addr[sizeof(in6_addr)];
  return ::inet_pton(AF_INET, host.c_str(), addr) == 1 || ::inet_pton(AF_INET6, host.c_str(), addr) == 1;
}

std::string tls_error(const char* what) {
  std::string message = what;
  const unsigned long code = ERR_get_error();
  if (code != 0) {
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    message.append(": ").append(text);
  }
  ERR_clear_error();
  return message;
}

}  // namespace

SocketStream::SocketStream(int fd, SSL_CTX* tls) : fd_(fd) {
  if (tls != nullptr) {
    ssl_ = SSL_new(tls);
    if (ssl_ != nullptr && SSL_set_fd(ssl_, fd_) != 1) {
      SSL_free(ssl_);
      ssl_ = nullptr;
    }
    if (ssl_ == nullptr) fd_ = -1;  // every operation then fails
  }
}

SocketStream::~SocketStream() {
  SSL_free(ssl_);  // the socket BIO does not close the descriptor
  ERR_clear_error();
}

bool SocketStream::handshake() {
  if (fd_ < 0) return false;
  if (ssl_ == nullptr) return true;
  ERR_clear_error();
  return SSL_accept(ssl_) == 1;
}

bool SocketStream::connect_handshake(const std::string& host, std::string* error) {
  std::string ignored;
  if (error == nullptr) error = &ignored;
  if (fd_ < 0) {
    *error = "TLS: no connection";
    return false;
  }
  if (ssl_ == nullptr) return true;
  ERR_clear_error();
  X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
  if (is_ip_address(host)) {
    if (X509_VERIFY_PARAM_set1_ip_asc(param, host.c_str()) != 1) {
      *error = tls_error("TLS: bad IP address");
      return false;
    }
  } else if (SSL_ctrl(ssl_, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                      const_cast<char*>(host.c_str())) != 1 ||  // SSL_set_tlsext_host_name, without its C cast
             SSL_set1_host(ssl_, host.c_str()) != 1) {
    *error = tls_error("TLS: bad host name");
    return false;
  }
  if (SSL_connect(ssl_) != 1) {
    const long verify = SSL_get_verify_result(ssl_);
    *error = verify != X509_V_OK ? std::string("TLS: certificate verification failed: ") +
                                       X509_verify_cert_error_string(verify)
                                 : tls_error("TLS handshake failed");
    ERR_clear_error();
    return false;
  }
  return true;
}

bool SocketStream::has_buffered_data() const { return ssl_ != nullptr && SSL_pending(ssl_) > 0; }

bool SocketStream::read_some(std::string& buffer, std::size_t max) {
  if (fd_ < 0) return false;
  char data[kReadSize];
  const std::size_t want = std::clamp<std::size_t>(max, 1, sizeof data);
  if (ssl_ != nullptr) {
    ERR_clear_error();
    std::size_t got = 0;
    if (SSL_read_ex(ssl_, data, want, &got) != 1) return false;
    buffer.append(data, got);
    return true;
  }
  for (;;) {
    const ssize_t got = ::recv(fd_, data, want, 0);
    if (got > 0) {
      buffer.append(data, static_cast<std::size_t>(got));
      return true;
    }
    if (got < 0 && errno == EINTR) continue;
    return false;
  }
}

bool SocketStream::write_all(std::string_view data) {
  if (fd_ < 0) return false;
  while (!data.empty()) {
    if (ssl_ != nullptr) {
      ERR_clear_error();
      std::size_t sent = 0;
      if (SSL_write_ex(ssl_, data.data(), data.size(), &sent) != 1) return false;
      data.remove_prefix(sent);
      continue;
    }
    const ssize_t sent = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(sent));
  }
  return true;
}

void SocketStream::close_gracefully() {
  if (fd_ < 0) return;
  if (ssl_ != nullptr) {
    ERR_clear_error();
    SSL_shutdown(ssl_);  // sends close_notify; the peer's answer is not awaited
  }
  ::shutdown(fd_, SHUT_WR);
  // Lingering close: read (and drop) what the peer still sends until it
  // closes, so that closing with unread bytes does not reset the connection
  // and destroy the answer before the peer reads it. Bounded in time and size.
  timeval tv{};
  tv.tv_sec = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char data[kReadSize];
  for (std::size_t drained = 0; drained < 1024 * 1024;) {
    const ssize_t got = ::recv(fd_, data, sizeof data, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    drained += static_cast<std::size_t>(got);
  }
}

void SocketStream::cut() {
  if (fd_ < 0) return;
  if (ssl_ != nullptr) SSL_set_quiet_shutdown(ssl_, 1);
  ::shutdown(fd_, SHUT_WR);
}

}  // namespace gpupool::netutil
