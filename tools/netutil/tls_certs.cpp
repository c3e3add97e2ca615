#include "gpupool/netutil/tls_certs.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpupool::netutil {
namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct X509Free {
  void operator()(X509* p) const { X509_free(p); }
};
struct BioFree {
  void operator()(BIO* p) const { BIO_free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;
using BioPtr = std::unique_ptr<BIO, BioFree>;

[[noreturn]] void fail(std::string_view what) {
  std::string message = "test certificates: ";
  message.append(what);
  const unsigned long code = ERR_get_error();
  if (code != 0) {
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    message.append(": ").append(text);
  }
  ERR_clear_error();
  throw std::runtime_error(message);
}

void check(int ok, std::string_view what) {
  if (ok <= 0) fail(what);
}

PkeyPtr make_key() {
  PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) fail("EC P-256 key generation");
  return key;
}

void add_extension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr) fail(value);
  const int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  check(ok, "X509_add_ext");
}

// A certificate for `key` named `common_name`, without extensions or
// signature. With no issuer it names itself as issuer.
X509Ptr make_certificate(EVP_PKEY* key, const char* common_name, X509* issuer) {
  X509Ptr cert(X509_new());
  if (!cert) fail("X509_new");
  check(X509_set_version(cert.get(), X509_VERSION_3), "X509_set_version");
  std::uint64_t serial = 0;
  check(RAND_bytes(reinterpret_cast<unsigned char*>(&serial), sizeof serial), "RAND_bytes");
  check(ASN1_INTEGER_set_uint64(X509_get_serialNumber(cert.get()), serial >> 1), "serial number");
  if (X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) == nullptr) fail("notBefore");
  if (X509_gmtime_adj(X509_getm_notAfter(cert.get()), 24 * 3600) == nullptr) fail("notAfter");
  check(X509_set_pubkey(cert.get(), key), "X509_set_pubkey");
  X509_NAME* name = X509_get_subject_name(cert.get());
  check(X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("gpupool tests"),
                                   -1, -1, 0),
        "subject O");
  check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(common_name), -1,
                                   -1, 0),
        "subject CN");
  X509_NAME* issuer_name = issuer != nullptr ? X509_get_subject_name(issuer) : name;
  check(X509_set_issuer_name(cert.get(), issuer_name), "X509_set_issuer_name");
  return cert;
}

std::string to_pem(const auto& write) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio) fail("BIO_new");
  check(write(bio.get()), "PEM write");
  char* data = nullptr;
  const long size = BIO_ctrl(bio.get(), BIO_CTRL_INFO, 0, &data);
  if (size <= 0 || data == nullptr) fail("PEM buffer");
  return std::string(data, static_cast<std::size_t>(size));
}

}  // namespace

TestCertificates make_test_certificates() {
  ERR_clear_error();
  const PkeyPtr ca_key = make_key();
  const X509Ptr ca = make_certificate(ca_key.get(), "gpupool test CA", nullptr);
  add_extension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE");
  add_extension(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
  add_extension(ca.get(), ca.get(), NID_subject_key_identifier, "hash");
  add_extension(ca.get(), ca.get(), NID_authority_key_identifier, "keyid:always");
  check(X509_sign(ca.get(), ca_key.get(), EVP_sha256()), "sign CA");

  const PkeyPtr server_key = make_key();
  const X509Ptr server = make_certificate(server_key.get(), "localhost", ca.get());
  add_extension(server.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_extension(server.get(), ca.get(), NID_key_usage, "critical,digitalSignature");
  add_extension(server.get(), ca.get(), NID_ext_key_usage, "serverAuth");
  add_extension(server.get(), ca.get(), NID_subject_alt_name, "IP:127.0.0.1,IP:::1,DNS:localhost");
  add_extension(server.get(), ca.get(), NID_subject_key_identifier, "hash");
  add_extension(server.get(), ca.get(), NID_authority_key_identifier, "keyid:always");
  check(X509_sign(server.get(), ca_key.get(), EVP_sha256()), "sign server certificate");

  TestCertificates out;
  out.ca_pem = to_pem([&](BIO* b) { return PEM_write_bio_X509(b, ca.get()); });
  out.server_cert_pem = to_pem([&](BIO* b) { return PEM_write_bio_X509(b, server.get()); });
  out.server_key_pem = to_pem(
      [&](BIO* b) { return PEM_write_bio_PrivateKey(b, server_key.get(), nullptr, nullptr, 0, nullptr, nullptr); });
  return out;
}

}  // namespace gpupool::netutil
