// Making certificates: the CA, and serving certificates it signs.
#include "gpupool/webhook/certificates.h"

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <ctime>
#include <stdexcept>

#include "openssl_util.h"
#include "subject_names.h"

namespace gpupool::webhook {
namespace {

using detail::check;
using detail::fail;
using detail::PkeyPtr;
using detail::X509Ptr;

PkeyPtr make_key() {
  PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) fail("EC P-256 key generation");
  return key;
}

void set_random_serial(X509* cert) {
  std::unique_ptr<BIGNUM, decltype(&BN_free)> bn(BN_new(), &BN_free);
  if (!bn) fail("BN_new");
  do {
    check(BN_rand(bn.get(), 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY), "random serial number");
  } while (BN_is_zero(bn.get()));
  if (BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert)) == nullptr) fail("serial number");
}

std::time_t seconds(Clock::time_point t) { return Clock::to_time_t(t); }

// An unsigned certificate for `key`, subject CN=`common_name`, valid from
// now - backdate for `validity`, issued by `issuer` (itself when null).
X509Ptr make_certificate(EVP_PKEY* key, const std::string& common_name, X509* issuer, Clock::time_point now,
                         std::chrono::seconds backdate, std::chrono::seconds validity) {
  X509Ptr cert(X509_new());
  if (!cert) fail("X509_new");
  check(X509_set_version(cert.get(), X509_VERSION_3), "X509_set_version");
  set_random_serial(cert.get());
  if (ASN1_TIME_set(X509_getm_notBefore(cert.get()), seconds(now - backdate)) == nullptr) fail("notBefore");
  if (ASN1_TIME_set(X509_getm_notAfter(cert.get()), seconds(now + validity)) == nullptr) fail("notAfter");
  // Never outlive the issuer: its notAfter bounds every chain through it.
  if (issuer != nullptr && ASN1_TIME_compare(X509_get0_notAfter(cert.get()), X509_get0_notAfter(issuer)) > 0) {
    check(X509_set1_notAfter(cert.get(), X509_get0_notAfter(issuer)), "notAfter");
  }
  check(X509_set_pubkey(cert.get(), key), "X509_set_pubkey");
  X509_NAME* name = X509_get_subject_name(cert.get());
  const auto* cn = reinterpret_cast<const unsigned char*>(common_name.c_str());
  check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, cn, -1, -1, 0), "subject common name");
  check(X509_set_issuer_name(cert.get(), issuer != nullptr ? X509_get_subject_name(issuer) : name),
        "X509_set_issuer_name");
  return cert;
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

void add_subject_alt_names(X509* cert, const SubjectNames& names) {
  std::unique_ptr<GENERAL_NAMES, decltype(&GENERAL_NAMES_free)> gens(sk_GENERAL_NAME_new_null(), &GENERAL_NAMES_free);
  if (!gens) fail("GENERAL_NAMES");
  const auto push = [&](int type, ASN1_STRING* value) {
    GENERAL_NAME* gen = GENERAL_NAME_new();
    if (gen == nullptr || value == nullptr) {
      GENERAL_NAME_free(gen);
      ASN1_STRING_free(value);
      fail("subjectAltName entry");
    }
    GENERAL_NAME_set0_value(gen, type, value);
    if (sk_GENERAL_NAME_push(gens.get(), gen) <= 0) {
      GENERAL_NAME_free(gen);
      fail("subjectAltName entry");
    }
  };
  for (const std::string& dns : names.dns_names) {
    ASN1_IA5STRING* value = ASN1_IA5STRING_new();
    if (value != nullptr && ASN1_STRING_set(value, dns.data(), static_cast<int>(dns.size())) != 1) {
      ASN1_STRING_free(value);
      value = nullptr;
    }
    push(GEN_DNS, value);
  }
  for (const std::string& ip : names.ip_addresses) push(GEN_IPADD, a2i_IPADDRESS(ip.c_str()));
  check(X509_add1_ext_i2d(cert, NID_subject_alt_name, gens.get(), 0, X509V3_ADD_DEFAULT), "subjectAltName");
}

void check_validity(const CertificateOptions& options) {
  if (options.ca_validity.count() <= 0 || options.serving_validity.count() <= 0) {
    throw std::invalid_argument("webhook certificates: validity periods must be positive");
  }
  if (options.backdate.count() < 0) throw std::invalid_argument("webhook certificates: negative backdate");
}

ServingCertificate issue(X509* ca, EVP_PKEY* ca_key, const SubjectNames& names, const CertificateOptions& options,
                         Clock::time_point now) {
  const PkeyPtr key = make_key();
  const std::string common_name = !names.dns_names.empty() ? names.dns_names.front() : names.ip_addresses.front();
  const X509Ptr cert = make_certificate(key.get(), common_name, ca, now, options.backdate, options.serving_validity);
  add_extension(cert.get(), ca, NID_basic_constraints, "critical,CA:FALSE");
  add_extension(cert.get(), ca, NID_key_usage, "critical,digitalSignature");
  add_extension(cert.get(), ca, NID_ext_key_usage, "serverAuth");
  add_subject_alt_names(cert.get(), names);
  add_extension(cert.get(), ca, NID_subject_key_identifier, "hash");
  add_extension(cert.get(), ca, NID_authority_key_identifier, "keyid:always");
  check(X509_sign(cert.get(), ca_key, EVP_sha256()), "sign serving certificate");
  return {detail::certificate_pem(cert.get()), detail::private_key_pem(key.get())};
}

}  // namespace

CertificateBundle generate_bundle(const SubjectNames& names, const CertificateOptions& options,
                                  Clock::time_point now) {
  detail::validate(names);
  check_validity(options);
  ERR_clear_error();
  const PkeyPtr ca_key = make_key();
  const std::string ca_name = options.ca_common_name + "@" + std::to_string(seconds(now));
  const X509Ptr ca = make_certificate(ca_key.get(), ca_name, nullptr, now, options.backdate, options.ca_validity);
  add_extension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0");
  add_extension(ca.get(), ca.get(), NID_key_usage, "critical,digitalSignature,keyCertSign,cRLSign");
  add_extension(ca.get(), ca.get(), NID_subject_key_identifier, "hash");
  check(X509_sign(ca.get(), ca_key.get(), EVP_sha256()), "sign CA certificate");

  ServingCertificate serving = issue(ca.get(), ca_key.get(), names, options, now);
  return {detail::certificate_pem(ca.get()), detail::private_key_pem(ca_key.get()), std::move(serving.cert_pem),
          std::move(serving.key_pem)};
}

ServingCertificate issue_serving_certificate(std::string_view ca_cert_pem, std::string_view ca_key_pem,
                                             const SubjectNames& names, const CertificateOptions& options,
                                             Clock::time_point now) {
  detail::validate(names);
  check_validity(options);
  const X509Ptr ca = detail::parse_certificate(ca_cert_pem, "CA certificate");
  const PkeyPtr ca_key = detail::parse_private_key(ca_key_pem, "CA key");
  if ((X509_get_extension_flags(ca.get()) & EXFLAG_CA) == 0) fail("CA certificate: not a CA (no CA:TRUE)");
  if (!detail::key_matches(ca.get(), ca_key.get())) fail("CA key: does not match the CA certificate");
  return issue(ca.get(), ca_key.get(), names, options, now);
}

}  // namespace gpupool::webhook
