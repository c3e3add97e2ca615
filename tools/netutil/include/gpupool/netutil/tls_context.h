// OpenSSL contexts for the loopback TLS servers and clients in tools/ and the
// tests. Both speak TLS 1.2+ and negotiate only http/1.1 over ALPN.
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <string_view>

namespace gpupool::netutil {

struct SslCtxFree {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, SslCtxFree>;

// A server context presenting `cert_pem` (the leaf first; intermediates may
// follow) with its private key `key_pem`. ALPN selects http/1.1 and nothing
// else (a client offering only h2 gets no ALPN answer). Throws
// std::runtime_error when the PEM does not load or the key does not match.
SslCtxPtr make_server_tls_context(std::string_view cert_pem, std::string_view key_pem);

// A client context trusting exactly the certificates in `ca_pem` (one or
// more), verifying the peer, offering http/1.1 over ALPN. The host name or
// IP address is checked per connection (SocketStream::connect_handshake).
// Throws std::runtime_error when `ca_pem` holds no certificate.
SslCtxPtr make_client_tls_context(std::string_view ca_pem);

}  // namespace gpupool::netutil
