// Certificates and keys for a control plane, made with the `openssl` CLI.
#pragma once

#include <string>
#include <vector>

namespace gpupool::testenv::detail {

struct Pki {
  std::string ca_crt, ca_key;            // self-signed CA (EC P-256)
  std::string serving_crt, serving_key;  // kube-apiserver serving certificate, signed by the CA
  std::string sa_key, sa_pub;            // service-account token signing pair (RSA 2048)
};

// The names of the files under `dir` (nothing is read or generated).
Pki pki_files(const std::string& dir);

// The files under `dir`, generated when missing and reused otherwise (a new
// CA also renews the serving certificate). The serving certificate's SANs:
// 127.0.0.1, localhost, kubernetes, kubernetes.default,
// kubernetes.default.svc(.cluster.local) and the service ClusterIP 10.96.0.1.
// Throws std::runtime_error with openssl's output when a command fails.
Pki ensure_pki(const std::string& dir);

// Runs `openssl ARGS...`; throws std::runtime_error with its output when it fails.
void run_openssl(const std::vector<std::string>& args);
// A new EC P-256 private key at `path` (mode 0600).
void make_ec_key(const std::string& path);

}  // namespace gpupool::testenv::detail
