#include "openssl_util.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>

#include <climits>

#include "gpupool/webhook/certificates.h"

namespace gpupool::webhook::detail {
namespace {

struct BioFree {
  void operator()(BIO* p) const { BIO_free(p); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;

BioPtr read_bio(std::string_view pem, std::string_view what) {
  if (pem.size() > INT_MAX) fail(std::string(what) + ": too large");
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) fail("BIO_new_mem_buf");
  return bio;
}

// Never asks for a passphrase: an encrypted key fails to load.
int no_passphrase(char*, int, int, void*) { return -1; }

template <typename Write>
std::string to_pem(const Write& write) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio) fail("BIO_new");
  check(write(bio.get()), "PEM write");
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio.get(), &data);
  if (size <= 0 || data == nullptr) fail("PEM buffer");
  std::string out(data, static_cast<std::size_t>(size));
  OPENSSL_cleanse(data, static_cast<std::size_t>(size));
  return out;
}

}  // namespace

void fail(std::string_view what) {
  std::string message = "webhook certificates: ";
  message.append(what);
  // The last error is the most specific one OpenSSL queued.
  const unsigned long code = ERR_peek_last_error();
  if (code != 0) {
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    message.append(": ").append(text);
  }
  ERR_clear_error();
  throw CertificateError(message);
}

void check(int ok, std::string_view what) {
  if (ok <= 0) fail(what);
}

X509Ptr parse_certificate(std::string_view pem, std::string_view what) {
  ERR_clear_error();
  const BioPtr bio = read_bio(pem, what);
  X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, no_passphrase, nullptr));
  if (!cert) fail(std::string(what) + ": not a PEM certificate");
  return cert;
}

PkeyPtr parse_private_key(std::string_view pem, std::string_view what) {
  ERR_clear_error();
  const BioPtr bio = read_bio(pem, what);
  PkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr));
  if (!key) fail(std::string(what) + ": not an unencrypted PEM private key");
  return key;
}

std::string certificate_pem(X509* cert) {
  return to_pem([cert](BIO* b) { return PEM_write_bio_X509(b, cert); });
}

std::string private_key_pem(EVP_PKEY* key) {
  return to_pem([key](BIO* b) { return PEM_write_bio_PrivateKey(b, key, nullptr, nullptr, 0, nullptr, nullptr); });
}

bool key_matches(X509* cert, EVP_PKEY* key) {
  const bool match = X509_check_private_key(cert, key) == 1;
  ERR_clear_error();  // a mismatch leaves a reason queued
  return match;
}

}  // namespace gpupool::webhook::detail
