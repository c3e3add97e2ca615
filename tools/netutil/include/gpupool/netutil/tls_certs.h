// Throwaway TLS certificates for loopback test servers (the scripted server,
// the fault proxy in unit tests), made in-process with OpenSSL 3.
#pragma once

#include <string>

namespace gpupool::netutil {

struct TestCertificates {
  std::string ca_pem;           // self-signed CA certificate (CA:TRUE, keyCertSign)
  std::string server_cert_pem;  // signed by the CA; serverAuth; SAN IP:127.0.0.1, IP:::1, DNS:localhost
  std::string server_key_pem;   // the server certificate's private key (PKCS#8)
};

// A fresh CA and a server certificate it signed, both EC P-256 / SHA-256,
// valid from an hour ago for a day. Every call makes new keys, so a
// certificate from one call does not verify against another call's CA.
// Throws std::runtime_error when OpenSSL fails.
TestCertificates make_test_certificates();

}  // namespace gpupool::netutil
