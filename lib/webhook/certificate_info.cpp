// Reading certificates: times, SANs, serial; key and chain checks.
#include <arpa/inet.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include <ctime>

#include "gpupool/webhook/certificates.h"
#include "openssl_util.h"

namespace gpupool::webhook {
namespace {

using detail::fail;

Clock::time_point to_time_point(const ASN1_TIME* time, std::string_view what) {
  std::tm tm{};
  if (time == nullptr || ASN1_TIME_to_tm(time, &tm) != 1) fail(what);
  return Clock::from_time_t(timegm(&tm));
}

std::string ip_text(const ASN1_OCTET_STRING* bytes) {
  char out[INET6_ADDRSTRLEN] = {};
  const int length = ASN1_STRING_length(bytes);
  const unsigned char* data = ASN1_STRING_get0_data(bytes);
  if (length == 4 && inet_ntop(AF_INET, data, out, sizeof out) != nullptr) return out;
  if (length == 16 && inet_ntop(AF_INET6, data, out, sizeof out) != nullptr) return out;
  return "<" + std::to_string(length) + "-byte address>";
}

SubjectNames read_names(X509* cert) {
  SubjectNames names;
  auto* gens = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (gens == nullptr) return names;
  for (int i = 0; i < sk_GENERAL_NAME_num(gens); ++i) {
    const GENERAL_NAME* gen = sk_GENERAL_NAME_value(gens, i);
    if (gen->type == GEN_DNS) {
      const ASN1_IA5STRING* s = gen->d.dNSName;
      names.dns_names.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                                   static_cast<std::size_t>(ASN1_STRING_length(s)));
    } else if (gen->type == GEN_IPADD) {
      names.ip_addresses.push_back(ip_text(gen->d.iPAddress));
    }
  }
  GENERAL_NAMES_free(gens);
  return names;
}

std::string serial_hex(X509* cert) {
  BIGNUM* bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert), nullptr);
  if (bn == nullptr) fail("serial number");
  char* hex = BN_bn2hex(bn);
  BN_free(bn);
  if (hex == nullptr) fail("serial number");
  std::string out(hex);
  OPENSSL_free(hex);
  return out;
}

std::string common_name(X509* cert) {
  const X509_NAME* name = X509_get_subject_name(cert);
  const int index = X509_NAME_get_index_by_NID(name, NID_commonName, -1);
  if (index < 0) return {};
  const ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, index));
  return std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(data)),
                     static_cast<std::size_t>(ASN1_STRING_length(data)));
}

bool verifies(X509* ca, X509* cert) {
  const bool ok = X509_check_issued(ca, cert) == X509_V_OK;
  EVP_PKEY* ca_public = X509_get0_pubkey(ca);
  const bool signed_by = ok && ca_public != nullptr && X509_verify(cert, ca_public) == 1;
  ERR_clear_error();
  return signed_by;
}

}  // namespace

CertificateInfo read_certificate(std::string_view cert_pem) {
  const detail::X509Ptr cert = detail::parse_certificate(cert_pem, "certificate");
  CertificateInfo info;
  info.times.not_before = to_time_point(X509_get0_notBefore(cert.get()), "certificate: unreadable notBefore");
  info.times.not_after = to_time_point(X509_get0_notAfter(cert.get()), "certificate: unreadable notAfter");
  info.names = read_names(cert.get());
  info.serial_hex = serial_hex(cert.get());
  info.subject_common_name = common_name(cert.get());
  // X509_check_ca also counts v1 self-signed certificates and bare
  // keyCertSign usage; a CA here means basicConstraints CA:TRUE.
  info.is_ca = (X509_get_extension_flags(cert.get()) & EXFLAG_CA) != 0;
  ERR_clear_error();
  return info;
}

bool key_matches_certificate(std::string_view cert_pem, std::string_view key_pem) {
  const detail::X509Ptr cert = detail::parse_certificate(cert_pem, "certificate");
  const detail::PkeyPtr key = detail::parse_private_key(key_pem, "private key");
  return detail::key_matches(cert.get(), key.get());
}

bool issued_by(std::string_view cert_pem, std::string_view ca_cert_pem) {
  try {
    const detail::X509Ptr ca = detail::parse_certificate(ca_cert_pem, "CA certificate");
    const detail::X509Ptr cert = detail::parse_certificate(cert_pem, "certificate");
    return verifies(ca.get(), cert.get());
  } catch (const CertificateError&) {
    return false;
  }
}

void check_bundle(const CertificateBundle& bundle) {
  const detail::X509Ptr ca = detail::parse_certificate(bundle.ca_cert_pem, "CA certificate");
  const detail::PkeyPtr ca_key = detail::parse_private_key(bundle.ca_key_pem, "CA key");
  const detail::X509Ptr cert = detail::parse_certificate(bundle.cert_pem, "serving certificate");
  const detail::PkeyPtr key = detail::parse_private_key(bundle.key_pem, "serving key");
  if ((X509_get_extension_flags(ca.get()) & EXFLAG_CA) == 0) fail("CA certificate: not a CA (no CA:TRUE)");
  if (!detail::key_matches(ca.get(), ca_key.get())) fail("CA key: does not match the CA certificate");
  if (!detail::key_matches(cert.get(), key.get())) fail("serving key: does not match the serving certificate");
  if (X509_check_issued(ca.get(), cert.get()) != X509_V_OK) {
    ERR_clear_error();
    fail("serving certificate: not issued by the CA certificate");
  }
  EVP_PKEY* ca_public = X509_get0_pubkey(ca.get());
  if (ca_public == nullptr || X509_verify(cert.get(), ca_public) != 1) {
    ERR_clear_error();
    fail("serving certificate: its signature does not verify with the CA's key");
  }
}

}  // namespace gpupool::webhook
