// Private to lib/webhook: owning pointers for OpenSSL objects, PEM in and
// out, and errors that carry OpenSSL's reason but never key material.
#pragma once

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>
#include <string>
#include <string_view>

namespace gpupool::webhook::detail {

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct X509Free {
  void operator()(X509* p) const { X509_free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;

// Throws CertificateError("webhook certificates: <what>[: <OpenSSL reason>]")
// and clears OpenSSL's error queue. OpenSSL's reasons name the failing step,
// never the bytes being processed.
[[noreturn]] void fail(std::string_view what);
void check(int ok, std::string_view what);  // fail(what) unless ok > 0

// The first certificate / the private key in `pem`; `what` names it in the
// error ("CA certificate", "serving key"). Encrypted keys are refused (no
// passphrase is ever asked for).
X509Ptr parse_certificate(std::string_view pem, std::string_view what);
PkeyPtr parse_private_key(std::string_view pem, std::string_view what);

std::string certificate_pem(X509* cert);
std::string private_key_pem(EVP_PKEY* key);  // PKCS#8, unencrypted

// Whether `key` is the private half of `cert`'s public key.
bool key_matches(X509* cert, EVP_PKEY* key);

}  // namespace gpupool::webhook::detail
