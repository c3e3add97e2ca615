// How to reach and authenticate to a Kubernetes API server: the result of
// reading a kubeconfig or the in-cluster service account.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace gpupool::kube {

// What to present to the server on a request.
struct Credentials {
  std::string bearer_token;     // empty: no Authorization header
  std::string client_cert_pem;  // empty: no client certificate
  std::string client_key_pem;
};

// Supplies credentials for each request. Implementations cache and refresh:
// a token file is re-read so rotated tokens are used, an exec plugin is run
// again when its credential expires.
class CredentialSource {
 public:
  virtual ~CredentialSource() = default;
  // Credentials to use now. Throws ConfigError when they cannot be obtained.
  virtual Credentials get() = 0;
  // The server answered 401 with what get() returned: drop any cache.
  virtual void invalidate() {}
};

// A fixed set of credentials (a kubeconfig's token or certificate data).
class StaticCredentials final : public CredentialSource {
 public:
  explicit StaticCredentials(Credentials c) : creds_(std::move(c)) {}
  Credentials get() override { return creds_; }

 private:
  Credentials creds_;
};

struct TlsConfig {
  bool insecure_skip_verify = false;  // only when the kubeconfig says so
  std::string ca_pem;                 // trusted CAs; empty means the system store
  std::string server_name;            // overrides the name checked in the server certificate
};

struct RestConfig {
  std::string server;  // "https://host:port", optionally with a path prefix
  TlsConfig tls;
  std::shared_ptr<CredentialSource> credentials;  // may be null (anonymous)
  std::string proxy_url;                          // kubeconfig proxy-url; empty: none
  // Client-side rate limit. controller-runtime's defaults.
  double qps = 20.0;
  int burst = 30;
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};  // per non-watch request
  int max_retries = 5;  // for idempotent requests, connection errors, 429 and 5xx
  std::string user_agent = "gpupool-operator/0.1";
  std::string source;  // where this came from, for messages: "kubeconfig /x (context y)", "in-cluster"
  // The namespace the configuration points at: the context's namespace, or the
  // service account's namespace in a cluster; "default" when neither says.
  std::string default_namespace = "default";
};

struct KubeconfigOptions {
  std::optional<std::string> path;     // --kubeconfig; overrides $KUBECONFIG
  std::optional<std::string> context;  // --context; default: current-context
  // Where load_default looks for the in-cluster service account (tests only).
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
};

// Reads the kubeconfig: `path` if given, else every file in $KUBECONFIG merged
// as kubectl merges them (first file to set a map key or current-context wins),
// else ~/.kube/config. Throws ConfigError naming the file and field at fault.
RestConfig load_kubeconfig(const KubeconfigOptions& options = {});

// The in-cluster configuration: KUBERNETES_SERVICE_HOST/PORT, the service
// account's ca.crt and token (re-read from disk so rotated tokens are used).
// `sa_dir` is for tests. Throws ConfigError when not in a cluster.
RestConfig load_in_cluster(const std::string& sa_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

// The order controller-runtime uses: an explicit --kubeconfig, then $KUBECONFIG,
// then in-cluster, then ~/.kube/config.
RestConfig load_default(const KubeconfigOptions& options = {});

}  // namespace gpupool::kube
