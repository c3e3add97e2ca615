// kubeconfig::Config + chosen context -> RestConfig, and load_kubeconfig.
// Validation follows client-go's ConfirmUsable: only the chosen context and
// the cluster and user it names must be usable.
#include "gpupool/kube/kubeconfig.h"

#include <spdlog/spdlog.h>

#include <cctype>
#include <cstdlib>

#include "file_io.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/pem.h"
#include "gpupool/kube/token_file.h"

namespace gpupool::kube::kubeconfig {

namespace {

std::string join_files(const std::vector<std::string>& files) {
  std::string out;
  for (const auto& f : files) out += (out.empty() ? "" : ":") + f;
  return out;
}

[[noreturn]] void fail(const Origin& origin, const std::string& field, const std::string& reason) {
  throw ConfigError("kubeconfig " + origin.file + ": " + origin.field + (field.empty() ? "" : "." + field) + ": " + reason);
}

// RFC 1123 label, as namespaces must be.
bool is_dns_label(const std::string& s) {
  if (s.empty() || s.size() > 63) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && !(c == '-' && i != 0 && i + 1 != s.size())) return false;
  }
  return true;
}

// "scheme://host[:port][/path]" with a non-empty host; the scheme, lower-cased.
std::optional<std::string> url_scheme(const std::string& url) {
  const auto sep = url.find("://");
  if (sep == std::string::npos || sep == 0) return std::nullopt;
  const auto host_end = url.find_first_of("/?#", sep + 3);
  if (url.substr(sep + 3, host_end == std::string::npos ? std::string::npos : host_end - sep - 3).empty()) {
    return std::nullopt;
  }
  std::string scheme = url.substr(0, sep);
  for (char& c : scheme) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return scheme;
}

std::string server_url(const std::string& name, const Cluster& cluster) {
  if (cluster.server.empty()) fail(cluster.origin, "cluster.server", "cluster \"" + name + "\" has no server");
  // A bare host[:port] means https, as client-go's DefaultServerURL has it.
  std::string url = cluster.server.find("://") == std::string::npos ? "https://" + cluster.server : cluster.server;
  const auto scheme = url_scheme(url);
  if (!scheme || (*scheme != "https" && *scheme != "http")) {
    fail(cluster.origin, "cluster.server", "\"" + cluster.server + "\" is not an https:// or http:// URL");
  }
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// A PEM file named by a kubeconfig field, read now.
std::string read_pem_file(const Origin& origin, const std::string& field, const std::string& path, bool is_key) {
  detail::FileContents f = detail::read_small_file(path);
  if (!f.ok) fail(origin, field, "cannot read " + path + ": " + f.error);
  if (auto why = is_key ? check_private_key_pem(f.data) : check_certificates_pem(f.data)) fail(origin, field, path + ": " + *why);
  return std::move(f.data);
}

void check_pem_data(const Origin& origin, const std::string& field, const std::string& pem, bool is_key) {
  if (auto why = is_key ? check_private_key_pem(pem) : check_certificates_pem(pem)) fail(origin, field, *why);
}

TlsConfig tls_config(const Cluster& cluster) {
  TlsConfig tls;
  const Origin& o = cluster.origin;
  if (!cluster.certificate_authority.empty() && !cluster.certificate_authority_data.empty()) {
    fail(o, "cluster", "certificate-authority and certificate-authority-data are both set; keep one");
  }
  if (!cluster.certificate_authority_data.empty()) {
    check_pem_data(o, "cluster.certificate-authority-data", cluster.certificate_authority_data, false);
    tls.ca_pem = cluster.certificate_authority_data;
  } else if (!cluster.certificate_authority.empty()) {
    tls.ca_pem = read_pem_file(o, "cluster.certificate-authority", cluster.certificate_authority, false);
  }
  if (cluster.insecure_skip_tls_verify && !tls.ca_pem.empty()) {
    // client-go refuses this too: which one was meant is unclear.
    fail(o, "cluster.insecure-skip-tls-verify", "cannot be combined with a certificate authority");
  }
  tls.insecure_skip_verify = cluster.insecure_skip_tls_verify;
  tls.server_name = cluster.tls_server_name;
  return tls;
}

// The client certificate and key of `user`, read and checked; empty when none.
Credentials client_certificate(const User& user) {
  const Origin& o = user.origin;
  if (!user.client_certificate.empty() && !user.client_certificate_data.empty()) {
    fail(o, "user", "client-certificate and client-certificate-data are both set; keep one");
  }
  if (!user.client_key.empty() && !user.client_key_data.empty()) {
    fail(o, "user", "client-key and client-key-data are both set; keep one");
  }
  const bool has_cert = !user.client_certificate.empty() || !user.client_certificate_data.empty();
  const bool has_key = !user.client_key.empty() || !user.client_key_data.empty();
  if (has_cert && !has_key) fail(o, "user", "client-certificate is set without client-key or client-key-data");
  if (has_key && !has_cert) fail(o, "user", "client-key is set without client-certificate or client-certificate-data");

  Credentials c;
  if (!has_cert) return c;
  if (!user.client_certificate_data.empty()) {
    check_pem_data(o, "user.client-certificate-data", user.client_certificate_data, false);
    c.client_cert_pem = user.client_certificate_data;
  } else {
    c.client_cert_pem = read_pem_file(o, "user.client-certificate", user.client_certificate, false);
  }
  if (!user.client_key_data.empty()) {
    check_pem_data(o, "user.client-key-data", user.client_key_data, true);
    c.client_key_pem = user.client_key_data;
  } else {
    c.client_key_pem = read_pem_file(o, "user.client-key", user.client_key, true);
  }
  return c;
}

std::shared_ptr<CredentialSource> exec_source(const User& user, const RestConfig& rc, const Cluster& cluster) {
  const Origin& o = user.origin;
  const ExecConfig& exec = *user.exec;
  if (!user.token.empty() || !user.token_file.empty() || !user.client_certificate.empty() ||
      !user.client_certificate_data.empty() || !user.client_key.empty() || !user.client_key_data.empty()) {
    fail(o, "user.exec", "cannot be combined with token, tokenFile or a client certificate in the same user");
  }
  if (exec.command.empty()) fail(o, "user.exec.command", "not set");
  if (exec.api_version.empty()) fail(o, "user.exec.apiVersion", std::string("not set (use ") + kExecApiV1 + ")");
  if (exec.api_version != kExecApiV1 && exec.api_version != kExecApiV1Beta1) {
    fail(o, "user.exec.apiVersion", "\"" + exec.api_version + "\" is not supported (use " + kExecApiV1 + " or " + kExecApiV1Beta1 + ")");
  }
  if (exec.interactive_mode == ExecInteractiveMode::Always) {
    fail(o, "user.exec.interactiveMode", "Always needs a terminal, and the operator never has one (use Never or IfAvailable)");
  }
  ExecOptions options;
  if (exec.provide_cluster_info) {
    options.cluster = ExecClusterInfo{rc.server, cluster.tls_server_name, cluster.insecure_skip_tls_verify, rc.tls.ca_pem,
                                      cluster.proxy_url};
  }
  return std::make_shared<ExecCredentials>(exec, std::move(options));
}

std::shared_ptr<CredentialSource> credential_source(const User& user, const RestConfig& rc, const Cluster& cluster) {
  const Origin& o = user.origin;
  if (!user.unsupported.empty()) {
    const std::string& field = user.unsupported.front();
    std::string why = "not supported by this client";
    if (field == "auth-provider") why = "auth providers are not supported; use an exec plugin";
    if (field == "username" || field == "password") why = "basic authentication is not supported";
    if (field.rfind("as", 0) == 0) why = "impersonation is not supported";
    fail(o, "user." + field, why);
  }
  if (user.exec) return exec_source(user, rc, cluster);

  Credentials creds = client_certificate(user);
  if (!user.token_file.empty()) {
    // The file wins over a token in the same user, as in client-go; it is read
    // now so a missing file is reported at load time.
    TokenFileOptions options;
    options.base = creds;
    auto source = std::make_shared<TokenFileCredentials>(user.token_file, std::move(options));
    try {
      source->get();
    } catch (const ConfigError& e) {
      fail(o, "user.tokenFile", e.what());
    }
    return source;
  }
  creds.bearer_token = user.token;
  if (creds.bearer_token.empty() && creds.client_cert_pem.empty()) return nullptr;  // anonymous
  return std::make_shared<StaticCredentials>(std::move(creds));
}

}  // namespace

RestConfig to_rest_config(const Config& config, const std::optional<std::string>& context) {
  const std::string files = join_files(config.files);
  const bool from_flag = context && !context->empty();
  const std::string name = from_flag ? *context : config.current_context;
  if (name.empty()) {
    throw ConfigError("kubeconfig " + files + ": no context selected: current-context is not set and --context was not given");
  }
  const auto ctx_it = config.contexts.find(name);
  if (ctx_it == config.contexts.end()) {
    if (from_flag) throw ConfigError("kubeconfig " + files + ": context \"" + name + "\" (from --context) not found");
    throw ConfigError("kubeconfig " + config.current_context_file + ": current-context \"" + name + "\" not found");
  }
  const Context& ctx = ctx_it->second;
  if (ctx.cluster.empty()) fail(ctx.origin, "context.cluster", "not set");
  const auto cluster_it = config.clusters.find(ctx.cluster);
  if (cluster_it == config.clusters.end()) fail(ctx.origin, "context.cluster", "cluster \"" + ctx.cluster + "\" not found");
  if (ctx.user.empty()) fail(ctx.origin, "context.user", "not set");
  const auto user_it = config.users.find(ctx.user);
  if (user_it == config.users.end()) fail(ctx.origin, "context.user", "user \"" + ctx.user + "\" not found");
  if (!ctx.ns.empty() && !is_dns_label(ctx.ns)) {
    fail(ctx.origin, "context.namespace", "\"" + ctx.ns + "\" is not a valid namespace name");
  }
  const Cluster& cluster = cluster_it->second;

  RestConfig rc;
  rc.server = server_url(ctx.cluster, cluster);
  rc.tls = tls_config(cluster);
  if (!cluster.proxy_url.empty()) {
    const auto scheme = url_scheme(cluster.proxy_url);
    if (!scheme || (*scheme != "http" && *scheme != "https" && *scheme != "socks5")) {
      fail(cluster.origin, "cluster.proxy-url", "\"" + cluster.proxy_url + "\" is not an http, https or socks5 URL");
    }
    rc.proxy_url = cluster.proxy_url;
  }
  rc.credentials = credential_source(user_it->second, rc, cluster);
  if (!ctx.ns.empty()) rc.default_namespace = ctx.ns;
  rc.source = "kubeconfig " + files + " (context \"" + name + "\")";
  return rc;
}

}  // namespace gpupool::kube::kubeconfig

namespace gpupool::kube {

RestConfig load_kubeconfig(const KubeconfigOptions& options) {
  using namespace kubeconfig;
  if (options.path && !options.path->empty()) return to_rest_config(read_file(*options.path), options.context);

  const char* env = std::getenv("KUBECONFIG");
  if (env != nullptr && *env != '\0') {
    std::vector<Config> configs;
    for (const std::string& file : split_path_list(env)) {
      detail::FileContents contents = detail::read_small_file(file);
      if (contents.not_found) {
        spdlog::debug("kubeconfig {} (from $KUBECONFIG) does not exist; skipped", file);
        continue;
      }
      if (!contents.ok) throw ConfigError("kubeconfig " + file + ": cannot read: " + contents.error);
      configs.push_back(parse(contents.data, file));
    }
    if (configs.empty()) throw ConfigError(std::string("$KUBECONFIG=") + env + ": none of the files exists");
    return to_rest_config(merge(std::move(configs)), options.context);
  }

  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') {
    throw ConfigError("no kubeconfig: --kubeconfig not given, $KUBECONFIG not set, and $HOME not set to find ~/.kube/config");
  }
  return to_rest_config(read_file(std::string(home) + "/.kube/config"), options.context);
}

}  // namespace gpupool::kube
