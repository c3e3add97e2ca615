// The steps behind load_kubeconfig (config.h): parse each kubeconfig file into
// the parts this operator understands, merge several files as kubectl does,
// and turn the chosen context into a RestConfig. Exposed for tests and tools;
// most callers want load_kubeconfig or load_default.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/kube/config.h"
#include "gpupool/kube/exec_credentials.h"

namespace gpupool::kube::kubeconfig {

// Where an entry was defined, for error messages.
struct Origin {
  std::string file;   // the kubeconfig path as it was given
  std::string field;  // the entry's path in that file, e.g. "clusters[2]"
};

// Relative paths below are already resolved against the directory of the
// file that defined them; "-data" fields are already base64-decoded.
struct Cluster {
  Origin origin;
  std::string server;
  std::string certificate_authority;       // path; empty: none
  std::string certificate_authority_data;  // PEM; empty: none
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  std::string proxy_url;
};

struct User {
  Origin origin;
  std::string token;
  std::string token_file;               // path
  std::string client_certificate;       // path
  std::string client_key;               // path
  std::string client_certificate_data;  // PEM
  std::string client_key_data;          // PEM
  std::optional<ExecConfig> exec;
  // Fields that are set but that this client cannot honor (basic auth,
  // auth-provider, impersonation): using this user is an error.
  std::vector<std::string> unsupported;
};

struct Context {
  Origin origin;
  std::string cluster;
  std::string user;
  std::string ns;  // "namespace"
};

struct Config {
  std::map<std::string, Cluster> clusters;
  std::map<std::string, User> users;
  std::map<std::string, Context> contexts;
  std::string current_context;
  std::string current_context_file;  // the file current_context came from
  std::vector<std::string> files;    // the files read, first (highest precedence) first
};

// Parses one kubeconfig document. `file` names it in messages and its
// directory anchors relative paths. Throws ConfigError ("kubeconfig FILE:
// FIELD: REASON") for malformed YAML, wrong types, bad base64, duplicate names.
// Empty input is an empty config.
Config parse(std::string_view yaml, const std::string& file);

// Reads and parses `file`. Throws ConfigError when it cannot be read.
Config read_file(const std::string& file);

// Merges configs in precedence order, as client-go's loader does: the first
// config to define a cluster, user or context name wins (the whole entry), and
// the first non-empty current-context wins.
Config merge(std::vector<Config> configs);

// Splits a $KUBECONFIG value on ':' dropping empty entries and repeats.
std::vector<std::string> split_path_list(std::string_view value);

// Builds the RestConfig for `context` (or current-context): validates the
// context, its cluster and user, reads certificate and token files, and sets up
// the credential source. Throws ConfigError naming the file and field at fault.
RestConfig to_rest_config(const Config& config, const std::optional<std::string>& context);

}  // namespace gpupool::kube::kubeconfig
