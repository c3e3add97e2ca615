#include "gpupool/netutil/tls_context.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <stdexcept>
#include <string>

namespace gpupool::netutil {
namespace {

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
  std::string message = std::string("TLS context: ") + what;
  const unsigned long code = ERR_get_error();
  if (code != 0) {
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    message.append(": ").append(text);
  }
  ERR_clear_error();
  throw std::runtime_error(message);
}

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;

BioPtr memory_bio(std::string_view pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) fail("BIO_new_mem_buf");
  return bio;
}

}  // namespace

SslCtxPtr make_server_tls_context(std::string_view cert_pem, std::string_view key_pem) {
  ERR_clear_error();
  SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) fail("SSL_CTX_new");
  if (SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION) != 1) fail("min protocol version");

  BioPtr cert_bio = memory_bio(cert_pem);
  X509* cert = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr);
  const int cert_ok = cert != nullptr ? SSL_CTX_use_certificate(ctx.get(), cert) : 0;
  X509_free(cert);
  if (cert_ok != 1) fail("server certificate");
  // Any further certificates in the PEM form the chain sent with the leaf.
  while (X509* extra = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr)) {
    if (SSL_CTX_add0_chain_cert(ctx.get(), extra) != 1) {
      X509_free(extra);
      fail("certificate chain");
    }
  }
  ERR_clear_error();  // the end of the PEM data

  BioPtr key_bio = memory_bio(key_pem);
  EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr);
  const int key_ok = key != nullptr ? SSL_CTX_use_PrivateKey(ctx.get(), key) : 0;
  EVP_PKEY_free(key);
  if (key_ok != 1 || SSL_CTX_check_private_key(ctx.get()) != 1) fail("server key");

  SSL_CTX_set_alpn_select_cb(ctx.get(), select_http11, nullptr);
  return ctx;
}

SslCtxPtr make_client_tls_context(std::string_view ca_pem) {
  ERR_clear_error();
  SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) fail("SSL_CTX_new");
  if (SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION) != 1) fail("min protocol version");

  X509_STORE* store = SSL_CTX_get_cert_store(ctx.get());
  BioPtr bio = memory_bio(ca_pem);
  int loaded = 0;
  while (X509* ca = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    const int ok = X509_STORE_add_cert(store, ca);
    X509_free(ca);
    if (ok != 1) fail("trusted CA");
    ++loaded;
  }
  ERR_clear_error();
  if (loaded == 0) fail("no CA certificate in the PEM data");

  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  if (SSL_CTX_set_alpn_protos(ctx.get(), kAlpnHttp11, sizeof kAlpnHttp11) != 0) fail("ALPN");
  return ctx;
}

}  // namespace gpupool::netutil
