#include "gpupool/kube/pem.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <climits>
#include <memory>

namespace gpupool::kube {

namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;

BioPtr memory_bio(std::string_view pem) {
  if (pem.size() > static_cast<std::size_t>(INT_MAX)) return nullptr;
  return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// Never prompt for a passphrase (the default callback reads the terminal).
int no_passphrase(char*, int, int, void*) { return -1; }

}  // namespace

std::optional<std::string> check_certificates_pem(std::string_view pem) {
  if (pem.find("-----BEGIN") == std::string_view::npos) return "no PEM block found";
  BioPtr bio = memory_bio(pem);
  if (!bio) return "too large";
  int count = 0;
  for (;;) {
    X509* cert = PEM_read_bio_X509(bio.get(), nullptr, no_passphrase, nullptr);
    if (cert == nullptr) break;
    X509_free(cert);
    ++count;
  }
  // The loop ends with "no start line" at the end of input; anything else means
  // a block that did not parse.
  const unsigned long err = ERR_peek_last_error();
  const bool clean_end = ERR_GET_LIB(err) == ERR_LIB_PEM && ERR_GET_REASON(err) == PEM_R_NO_START_LINE;
  ERR_clear_error();
  if (count == 0) return "no certificate found in PEM data";
  if (!clean_end) return "a PEM block is not a valid certificate";
  return std::nullopt;
}

std::optional<std::string> check_private_key_pem(std::string_view pem) {
  if (pem.find("-----BEGIN") == std::string_view::npos) return "no PEM block found";
  if (pem.find("ENCRYPTED") != std::string_view::npos) return "encrypted private keys are not supported";
  BioPtr bio = memory_bio(pem);
  if (!bio) return "too large";
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr);
  ERR_clear_error();
  if (key == nullptr) return "no valid private key found in PEM data";
  EVP_PKEY_free(key);
  return std::nullopt;
}

}  // namespace gpupool::kube
