#include "support/socket_stream.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>
#include <stdexcept>

namespace gpupool::test {
namespace {

constexpr std::size_t kReadSize = 16 * 1024;
constexpr unsigned char kAlpnHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};

// Offer only http/1.1; a client that does not list it gets no ALPN answer.
int select_http11(SSL* /*ssl*/, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                  unsigned int inlen, void* /*arg*/) {
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, outlen, kAlpnHttp11, sizeof kAlpnHttp11, in, inlen) !=
      OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_NOACK;
  }
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

[[noreturn]] void fail(const char* what) {
  ERR_clear_error();
  throw std::runtime_error(std::string("scripted server TLS: ") + what);
}

}  // namespace

SslCtxPtr make_server_tls_context(const TestCertificates& certs) {
  SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) fail("SSL_CTX_new");
  if (SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION) != 1) fail("min protocol version");

  BIO* cert_bio = BIO_new_mem_buf(certs.server_cert_pem.data(), static_cast<int>(certs.server_cert_pem.size()));
  X509* cert = cert_bio != nullptr ? PEM_read_bio_X509(cert_bio, nullptr, nullptr, nullptr) : nullptr;
  BIO_free(cert_bio);
  const int cert_ok = cert != nullptr ? SSL_CTX_use_certificate(ctx.get(), cert) : 0;
  X509_free(cert);
  if (cert_ok != 1) fail("server certificate");

  BIO* key_bio = BIO_new_mem_buf(certs.server_key_pem.data(), static_cast<int>(certs.server_key_pem.size()));
  EVP_PKEY* key = key_bio != nullptr ? PEM_read_bio_PrivateKey(key_bio, nullptr, nullptr, nullptr) : nullptr;
  BIO_free(key_bio);
  const int key_ok = key != nullptr ? SSL_CTX_use_PrivateKey(ctx.get(), key) : 0;
  EVP_PKEY_free(key);
  if (key_ok != 1 || SSL_CTX_check_private_key(ctx.get()) != 1) fail("server key");

  SSL_CTX_set_alpn_select_cb(ctx.get(), select_http11, nullptr);
  return ctx;
}

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

bool SocketStream::read_some(std::string& buffer) {
  if (fd_ < 0) return false;
  char data[kReadSize];
  if (ssl_ != nullptr) {
    ERR_clear_error();
    std::size_t got = 0;
    if (SSL_read_ex(ssl_, data, sizeof data, &got) != 1) return false;
    buffer.append(data, got);
    return true;
  }
  for (;;) {
    const ssize_t got = ::recv(fd_, data, sizeof data, 0);
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

}  // namespace gpupool::test
