// The service account configuration inside a pod, and load_default's choice
// between it and a kubeconfig.
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <cstdlib>

#include "file_io.h"
#include "gpupool/kube/config.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/pem.h"
#include "gpupool/kube/token_file.h"

namespace gpupool::kube {

namespace {

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

bool is_port(const std::string& s) {
  if (s.empty() || s.size() > 5) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  const int port = std::stoi(s);
  return port > 0 && port < 65536;
}

}  // namespace

RestConfig load_in_cluster(const std::string& sa_dir) {
  const std::string host = env_or_empty("KUBERNETES_SERVICE_HOST");
  const std::string port = env_or_empty("KUBERNETES_SERVICE_PORT");
  if (host.empty() || port.empty()) {
    throw ConfigError("in-cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set (not running in a pod)");
  }
  if (!is_port(port)) throw ConfigError("in-cluster: KUBERNETES_SERVICE_PORT \"" + port + "\" is not a port number");

  RestConfig rc;
  // An IPv6 address needs brackets in a URL (net.JoinHostPort in client-go).
  const bool ipv6 = host.find(':') != std::string::npos && host.front() != '[';
  rc.server = "https://" + (ipv6 ? "[" + host + "]" : host) + ":" + port;

  const std::string ca_path = sa_dir + "/ca.crt";
  detail::FileContents ca = detail::read_small_file(ca_path);
  if (!ca.ok) throw ConfigError("in-cluster: " + ca_path + ": cannot read: " + ca.error);
  if (auto why = check_certificates_pem(ca.data)) throw ConfigError("in-cluster: " + ca_path + ": " + *why);
  rc.tls.ca_pem = std::move(ca.data);

  auto token = std::make_shared<TokenFileCredentials>(sa_dir + "/token");
  try {
    token->get();  // fail now, not on the first request
  } catch (const ConfigError& e) {
    throw ConfigError(std::string("in-cluster: ") + e.what());
  }
  rc.credentials = std::move(token);

  detail::FileContents ns = detail::read_small_file(sa_dir + "/namespace");
  if (ns.ok && !detail::trim(ns.data).empty()) rc.default_namespace = detail::trim(ns.data);
  rc.source = "in-cluster";
  return rc;
}

RestConfig load_default(const KubeconfigOptions& options) {
  if ((options.path && !options.path->empty()) || !env_or_empty("KUBECONFIG").empty()) return load_kubeconfig(options);

  std::string in_cluster_error;
  try {
    return load_in_cluster(options.service_account_dir);
  } catch (const ConfigError& e) {
    in_cluster_error = e.what();
    // In a pod but unusable: worth a warning, since a kubeconfig is used instead.
    if (!env_or_empty("KUBERNETES_SERVICE_HOST").empty()) spdlog::warn("{}; trying ~/.kube/config", in_cluster_error);
  }

  const std::string home = env_or_empty("HOME");
  struct stat st {};
  if (home.empty() || ::stat((home + "/.kube/config").c_str(), &st) != 0) {
    throw ConfigError("no Kubernetes configuration found: --kubeconfig not given; $KUBECONFIG not set; " + in_cluster_error +
                      "; " + (home.empty() ? std::string("$HOME not set") : home + "/.kube/config does not exist"));
  }
  return load_kubeconfig(options);
}

}  // namespace gpupool::kube
