// Credentials from an exec plugin (client.authentication.k8s.io ExecCredential,
// v1 and v1beta1), as kubectl runs them for cloud logins: the plugin prints an
// ExecCredential whose status carries a token or a client certificate and key,
// optionally with an expiry.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/kube/config.h"

namespace gpupool::kube {

inline constexpr const char* kExecApiV1 = "client.authentication.k8s.io/v1";
inline constexpr const char* kExecApiV1Beta1 = "client.authentication.k8s.io/v1beta1";

// kubeconfig exec.interactiveMode. The operator never has a terminal, so only
// Never and IfAvailable can work; Always is rejected.
enum class ExecInteractiveMode { Never, IfAvailable, Always };

struct ExecEnvVar {
  std::string name;
  std::string value;
};

// A kubeconfig user's `exec` section.
struct ExecConfig {
  // The program. Containing a '/': a path (the kubeconfig loader has already
  // made a relative one absolute against the kubeconfig's directory); otherwise
  // looked up in $PATH.
  std::string command;
  std::vector<std::string> args;
  std::vector<ExecEnvVar> env;  // added to (and overriding) this process's environment
  std::string api_version;      // kExecApiV1 or kExecApiV1Beta1
  std::string install_hint;     // shown when the command is not found
  bool provide_cluster_info = false;
  ExecInteractiveMode interactive_mode = ExecInteractiveMode::IfAvailable;
};

// ExecCredential spec.cluster, sent when provide_cluster_info is set.
struct ExecClusterInfo {
  std::string server;
  std::string tls_server_name;
  bool insecure_skip_tls_verify = false;
  std::string certificate_authority_pem;  // sent base64-encoded, as client-go does
  std::string proxy_url;
};

struct ExecOptions {
  std::chrono::milliseconds timeout{std::chrono::seconds(60)};  // the plugin is killed after this
  // Credentials are renewed this long before their expirationTimestamp (but
  // never before half their lifetime has passed), so a request does not race
  // the expiry.
  std::chrono::seconds refresh_before_expiry{30};
  std::function<std::chrono::system_clock::time_point()> now;  // default: system_clock::now
  std::optional<ExecClusterInfo> cluster;  // needed when provide_cluster_info
};

// Runs the plugin (no shell; stdin is /dev/null, stdout and stderr captured)
// on first use, when the cached credential is due for renewal, and after
// invalidate(). Runs are serialized. Failures throw ConfigError naming the
// command and what went wrong; stdout (which may hold a token) is never quoted.
class ExecCredentials final : public CredentialSource {
 public:
  // Throws ConfigError for a config that can never work (no command, unknown
  // apiVersion, interactiveMode Always, provide_cluster_info without cluster).
  explicit ExecCredentials(ExecConfig config, ExecOptions options = {});

  Credentials get() override;
  void invalidate() override;

  // Times the plugin has been run (for tests and metrics).
  int runs() const;

 private:
  std::chrono::system_clock::time_point now() const;
  Credentials run_plugin();  // with mu_ held

  ExecConfig config_;
  ExecOptions options_;
  mutable std::mutex mu_;
  std::optional<Credentials> cached_;                           // guarded by mu_
  std::optional<std::chrono::system_clock::time_point> renew_;  // guarded by mu_; none: until invalidate()
  int runs_ = 0;                                                // guarded by mu_
};

// What a plugin printed: its credentials, and when they expire (none: they
// are used until invalidate()).
struct ExecCredentialOutput {
  Credentials creds;
  std::optional<std::chrono::system_clock::time_point> expiry;
};

// Reads a plugin's stdout: an ExecCredential of config.api_version whose
// status has a token, or a client certificate and key (PEM), or both.
// Throws ConfigError naming config.command for anything else; the message
// never quotes a token or key.
ExecCredentialOutput parse_exec_credential(const ExecConfig& config, std::string_view out);

// The KUBERNETES_EXEC_INFO value for a run: an ExecCredential with spec only.
std::string exec_info_json(const ExecConfig& config, const std::optional<ExecClusterInfo>& cluster);

}  // namespace gpupool::kube
