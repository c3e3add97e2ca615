// Serving certificates signed by a control plane's own CA, for servers that
// the cluster's clients should trust exactly as they trust the apiserver,
// e.g. the fault proxy (tools/faultproxy) in front of it: a kubeconfig for
// the proxy (ControlPlane::kubeconfig_for(user, proxy.url())) then carries
// the cluster's CA unchanged.
#pragma once

#include <string>
#include <vector>

#include "gpupool/testenv/control_plane.h"

namespace gpupool::testenv {

struct ServingCert {
  std::string cert_pem;  // the leaf certificate
  std::string key_pem;   // its EC P-256 private key
};

// A new key and a certificate for it, signed with the CA key in the control
// plane's state dir (openssl CLI, like the rest of its PKI): serverAuth,
// valid for a year, with `hosts` as subjectAltName (IP addresses as IP:,
// anything else as DNS:). Nothing is left on disk. Throws
// std::invalid_argument for an empty or odd host name, std::runtime_error
// when openssl fails.
ServingCert issue_serving_cert(const ControlPlane& cluster,
                               const std::vector<std::string>& hosts = {"127.0.0.1", "localhost"});

}  // namespace gpupool::testenv
