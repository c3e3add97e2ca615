// Test certificates are made by the same code as the webhook's
// (lib/webhook/certificates.h): one copy of certificate making.
#include "gpupool/netutil/tls_certs.h"

#include <chrono>

#include "gpupool/webhook/certificates.h"

namespace gpupool::netutil {

TestCertificates make_test_certificates() {
  webhook::SubjectNames names;
  names.dns_names = {"localhost"};
  names.ip_addresses = {"127.0.0.1", "::1"};
  webhook::CertificateOptions options;
  options.ca_common_name = "gpupool-test-ca";
  options.ca_validity = std::chrono::hours(24);
  options.serving_validity = std::chrono::hours(24);
  try {
    const webhook::CertificateBundle b = webhook::generate_bundle(names, options);
    return {b.ca_cert_pem, b.cert_pem, b.key_pem};
  } catch (const webhook::CertificateError& e) {
    throw std::runtime_error(std::string("test certificates: ") + e.what());
  }
}

}  // namespace gpupool::netutil
