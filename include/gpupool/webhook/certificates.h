// The admission webhook's certificates, made in-process with OpenSSL: a
// self-signed CA, and a serving certificate the CA signs for the Service's
// DNS names and IP addresses. The controller keeps all four PEMs in a Secret,
// writes the CA certificate as the caBundle of its webhook configurations,
// and re-issues only the serving certificate from the same CA on rotation, so
// the caBundle stays the same (rotation.h decides when).
//
// Keys are ECDSA P-256, signatures ECDSA with SHA-256: a 128-bit security
// level at a fraction of RSA-2048's cost (a key is generated in milliseconds,
// handshakes are cheaper), and accepted by every client that calls webhooks
// (kube-apiserver's Go crypto/tls, curl, OpenSSL).
//
// Guarantees: serial numbers are 127 random bits; the CA has
// basicConstraints CA:TRUE (pathlen 0) and keyUsage keyCertSign; the serving
// certificate has CA:FALSE, keyUsage digitalSignature, extendedKeyUsage
// serverAuth, the requested SANs (DNS and IP), and never outlives its CA
// (its notAfter is cut to the CA's). Keys are written as unencrypted PKCS#8
// PEM ("PRIVATE KEY"). Every failure throws CertificateError with a message
// that names the step and the object ("serving key: ..."), never key
// material.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpupool::webhook {

using Clock = std::chrono::system_clock;

class CertificateError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Subject alternative names. IP addresses are IPv4 or IPv6 text; they are
// compared and reported in the canonical form inet_ntop writes ("::1").
struct SubjectNames {
  std::vector<std::string> dns_names;     // e.g. gpupool-webhook.gpupool-system.svc
  std::vector<std::string> ip_addresses;  // e.g. 127.0.0.1

  bool operator==(const SubjectNames&) const = default;
};

struct CertificateOptions {
  // The CA's common name; a "@<unix seconds>" suffix tells successive CAs apart.
  std::string ca_common_name = "gpupool-webhook-ca";
  // 5 years: long enough that CA rotations (which change the caBundle) are rare.
  std::chrono::seconds ca_validity = std::chrono::hours(24 * 365 * 5);
  // 1 year, re-issued after two thirds (see rotation.h): about every 8 months.
  std::chrono::seconds serving_validity = std::chrono::hours(24 * 365);
  // notBefore is set this far before `now`, for clients whose clocks are behind.
  std::chrono::seconds backdate = std::chrono::hours(1);
};

struct CertificateBundle {
  std::string ca_cert_pem;
  std::string ca_key_pem;
  std::string cert_pem;  // the serving certificate
  std::string key_pem;   // its key

  bool operator==(const CertificateBundle&) const = default;
};

struct ServingCertificate {
  std::string cert_pem;
  std::string key_pem;
};

// A new CA and a serving certificate it signed for `names` (at least one DNS
// name or IP address; the first DNS name, else the first IP, is also the
// subject's common name). Throws CertificateError, std::invalid_argument for
// names that are not valid (an empty list, a malformed IP address, a DNS name
// with characters outside [A-Za-z0-9.*-]) or a validity that is not positive.
CertificateBundle generate_bundle(const SubjectNames& names, const CertificateOptions& options = {},
                                  Clock::time_point now = Clock::now());

// A new serving certificate and key signed by the given CA (which must be a
// CA certificate whose key is `ca_key_pem`). Uses options.serving_validity
// and options.backdate.
ServingCertificate issue_serving_certificate(std::string_view ca_cert_pem, std::string_view ca_key_pem,
                                             const SubjectNames& names, const CertificateOptions& options = {},
                                             Clock::time_point now = Clock::now());

struct CertificateTimes {
  Clock::time_point not_before;
  Clock::time_point not_after;

  bool operator==(const CertificateTimes&) const = default;
};

// What the controller needs to know about a certificate it finds.
struct CertificateInfo {
  CertificateTimes times;
  SubjectNames names;      // the SANs, in the certificate's order (IPs canonical)
  std::string serial_hex;  // upper-case hexadecimal, no separators
  std::string subject_common_name;
  bool is_ca = false;  // basicConstraints CA:TRUE
};

// Reads the first certificate in `cert_pem`. Throws CertificateError.
CertificateInfo read_certificate(std::string_view cert_pem);

// Whether `key_pem` is the private key of `cert_pem`. Throws CertificateError
// when either does not parse.
bool key_matches_certificate(std::string_view cert_pem, std::string_view key_pem);

// Whether `cert_pem` names `ca_cert_pem` as its issuer and carries a
// signature that verifies with the CA's key. False when either does not
// parse.
bool issued_by(std::string_view cert_pem, std::string_view ca_cert_pem);

// Checks that a bundle found in a Secret can be served as is: all four PEMs
// parse, the CA is a CA, each key belongs to its certificate, the serving
// certificate was signed by this CA. Throws CertificateError naming the first
// problem (then the controller generates a new bundle). Validity times and
// SANs are rotation.h's concern.
void check_bundle(const CertificateBundle& bundle);

}  // namespace gpupool::webhook
