#include "gpupool/kube/exec_credentials.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <unordered_map>

#include "file_io.h"
#include "gpupool/kube/base64.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/pem.h"
#include "gpupool/common/rfc3339.h"
#include "gpupool/common/subprocess.h"

extern char** environ;

namespace gpupool::kube {

namespace {

constexpr std::size_t kMaxOutput = 1024 * 1024;
constexpr std::size_t kMaxStderrInMessage = 1024;

[[noreturn]] void fail(const ExecConfig& config, const std::string& what) {
  throw ConfigError("exec plugin \"" + config.command + "\": " + what);
}

// The plugin's stderr for an error message: trimmed, and its end when long
// (the end usually says what went wrong).
std::string stderr_summary(const std::string& err) {
  std::string text = detail::trim(err);
  if (text.empty()) return "";
  if (text.size() > kMaxStderrInMessage) text = "..." + text.substr(text.size() - kMaxStderrInMessage);
  return "; stderr: " + text;
}

std::string env_name(const std::string& entry) { return entry.substr(0, entry.find('=')); }

// This process's environment, then the configured variables, then
// KUBERNETES_EXEC_INFO; a later entry replaces an earlier one of the same name.
std::vector<std::string> plugin_environment(const ExecConfig& config, const std::string& exec_info) {
  std::vector<std::string> env;
  std::unordered_map<std::string, std::size_t> index;
  const auto set = [&](std::string entry) {
    const std::string name = env_name(entry);
    if (auto it = index.find(name); it != index.end()) {
      env[it->second] = std::move(entry);
    } else {
      index.emplace(name, env.size());
      env.push_back(std::move(entry));
    }
  };
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) set(*e);
  for (const auto& var : config.env) set(var.name + "=" + var.value);
  set("KUBERNETES_EXEC_INFO=" + exec_info);
  return env;
}

std::string resolve_program(const ExecConfig& config) {
  if (config.command.find('/') != std::string::npos) return config.command;
  const char* path = std::getenv("PATH");
  std::string program = common::find_in_path(config.command, path ? path : "");
  if (program.empty()) {
    std::string msg = "executable not found in $PATH";
    if (!config.install_hint.empty()) msg += "\n\n" + config.install_hint;
    fail(config, msg);
  }
  return program;
}

// A string member of `obj`, or empty when absent or null. Throws for other types.
std::string string_member(const ExecConfig& config, const rapidjson::Value& obj, const char* name,
                          const std::string& path) {
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || it->value.IsNull()) return "";
  if (!it->value.IsString()) fail(config, "stdout: " + path + " is not a string");
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

}  // namespace

ExecCredentialOutput parse_exec_credential(const ExecConfig& config, std::string_view out) {
  rapidjson::Document doc;
  // Iterative: deep nesting in a plugin's output (up to kMaxOutput) must not
  // overflow the stack (fuzz corpus exec_credential/regression-deep-nesting).
  doc.Parse<rapidjson::kParseIterativeFlag>(out.data(), out.size());
  if (doc.HasParseError()) {
    fail(config, std::string("stdout is not valid JSON: ") + rapidjson::GetParseError_En(doc.GetParseError()) +
                     " (at offset " + std::to_string(doc.GetErrorOffset()) + ")");
  }
  if (!doc.IsObject()) fail(config, "stdout is not a JSON object");
  const std::string api_version = string_member(config, doc, "apiVersion", "apiVersion");
  if (api_version != config.api_version) {
    fail(config, "returned apiVersion \"" + api_version + "\", but the kubeconfig asks for \"" + config.api_version + "\"");
  }
  const std::string kind = string_member(config, doc, "kind", "kind");
  if (kind != "ExecCredential") fail(config, "returned kind \"" + kind + "\", want \"ExecCredential\"");

  auto status = doc.FindMember("status");
  if (status == doc.MemberEnd() || status->value.IsNull()) fail(config, "returned no status");
  if (!status->value.IsObject()) fail(config, "stdout: status is not an object");
  const rapidjson::Value& st = status->value;

  ExecCredentialOutput result;
  result.creds.bearer_token = string_member(config, st, "token", "status.token");
  result.creds.client_cert_pem = string_member(config, st, "clientCertificateData", "status.clientCertificateData");
  result.creds.client_key_pem = string_member(config, st, "clientKeyData", "status.clientKeyData");
  const std::string expiry = string_member(config, st, "expirationTimestamp", "status.expirationTimestamp");

  if (result.creds.bearer_token.empty() && result.creds.client_cert_pem.empty() && result.creds.client_key_pem.empty()) {
    fail(config, "returned neither a token nor a client certificate and key in status");
  }
  if (result.creds.client_cert_pem.empty() != result.creds.client_key_pem.empty()) {
    fail(config, "returned only one of status.clientCertificateData and status.clientKeyData; both are needed");
  }
  if (!result.creds.client_cert_pem.empty()) {
    if (auto why = check_certificates_pem(result.creds.client_cert_pem)) fail(config, "status.clientCertificateData: " + *why);
    if (auto why = check_private_key_pem(result.creds.client_key_pem)) fail(config, "status.clientKeyData: " + *why);
  }
  if (!expiry.empty()) {
    if (auto t = parse_rfc3339(expiry)) result.expiry = to_system_clock(*t);
    if (!result.expiry) fail(config, "status.expirationTimestamp \"" + expiry + "\" is not an RFC 3339 time");
  }
  return result;
}

std::string exec_info_json(const ExecConfig& config, const std::optional<ExecClusterInfo>& cluster) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  const auto str = [&w](const std::string& s) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); };
  w.StartObject();
  w.Key("apiVersion");
  str(config.api_version);
  w.Key("kind");
  w.String("ExecCredential");
  w.Key("spec");
  w.StartObject();
  w.Key("interactive");
  w.Bool(false);  // never a terminal
  if (config.provide_cluster_info && cluster) {
    w.Key("cluster");
    w.StartObject();
    w.Key("server");
    str(cluster->server);
    if (!cluster->tls_server_name.empty()) {
      w.Key("tls-server-name");
      str(cluster->tls_server_name);
    }
    if (cluster->insecure_skip_tls_verify) {
      w.Key("insecure-skip-tls-verify");
      w.Bool(true);
    }
    if (!cluster->certificate_authority_pem.empty()) {
      w.Key("certificate-authority-data");
      str(base64_encode(cluster->certificate_authority_pem));
    }
    if (!cluster->proxy_url.empty()) {
      w.Key("proxy-url");
      str(cluster->proxy_url);
    }
    w.EndObject();
  }
  w.EndObject();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

ExecCredentials::ExecCredentials(ExecConfig config, ExecOptions options)
    : config_(std::move(config)), options_(std::move(options)) {
  if (config_.command.empty()) throw ConfigError("exec plugin: command is empty");
  if (config_.api_version != kExecApiV1 && config_.api_version != kExecApiV1Beta1) {
    fail(config_, "apiVersion \"" + config_.api_version + "\" is not supported (use " + kExecApiV1 + " or " +
                      kExecApiV1Beta1 + ")");
  }
  if (config_.interactive_mode == ExecInteractiveMode::Always) {
    fail(config_, "interactiveMode Always needs a terminal, and the operator never has one");
  }
  if (config_.provide_cluster_info && !options_.cluster) fail(config_, "provideClusterInfo is set but no cluster was given");
  for (const auto& var : config_.env) {
    if (var.name.empty() || var.name.find('=') != std::string::npos) fail(config_, "env: invalid variable name \"" + var.name + "\"");
  }
}

std::chrono::system_clock::time_point ExecCredentials::now() const {
  return options_.now ? options_.now() : std::chrono::system_clock::now();
}

Credentials ExecCredentials::get() {
  std::lock_guard lock(mu_);
  if (cached_ && (!renew_ || now() < *renew_)) return *cached_;
  return run_plugin();
}

void ExecCredentials::invalidate() {
  std::lock_guard lock(mu_);
  cached_.reset();
}

int ExecCredentials::runs() const {
  std::lock_guard lock(mu_);
  return runs_;
}

Credentials ExecCredentials::run_plugin() {
  ++runs_;
  const std::string program = resolve_program(config_);
  std::vector<std::string> argv{config_.command};
  argv.insert(argv.end(), config_.args.begin(), config_.args.end());
  const auto env = plugin_environment(config_, exec_info_json(config_, options_.cluster));

  const common::ProcessResult r = common::run_process(program, argv, env, options_.timeout, kMaxOutput);
  if (!r.started) {
    std::string msg = "cannot run " + program + ": " + r.start_error;
    if (!config_.install_hint.empty()) msg += "\n\n" + config_.install_hint;
    fail(config_, msg);
  }
  if (r.timed_out) {
    fail(config_, "did not finish within " + std::to_string(options_.timeout.count()) + "ms and was killed" +
                      stderr_summary(r.err));
  }
  if (!r.exited) fail(config_, "killed by signal " + std::to_string(r.signal) + stderr_summary(r.err));
  if (r.exit_code != 0) fail(config_, "exited with status " + std::to_string(r.exit_code) + stderr_summary(r.err));
  if (r.out_truncated) fail(config_, "wrote more than " + std::to_string(kMaxOutput) + " bytes to stdout");

  ExecCredentialOutput parsed = parse_exec_credential(config_, r.out);
  const auto t = now();
  if (parsed.expiry) {
    if (*parsed.expiry <= t) spdlog::warn("exec plugin \"{}\" returned a credential that has already expired", config_.command);
    // Renew refresh_before_expiry early, but not before half the lifetime, so
    // a short-lived credential is not renewed on every request.
    const auto half = t + (*parsed.expiry - t) / 2;
    const auto early = *parsed.expiry - options_.refresh_before_expiry;
    renew_ = std::max(half, early);
  } else {
    renew_.reset();
  }
  cached_ = parsed.creds;
  return parsed.creds;
}

}  // namespace gpupool::kube
