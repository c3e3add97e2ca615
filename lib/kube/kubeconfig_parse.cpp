// kubeconfig YAML -> kubeconfig::Config. Checks types and decodes what can be
// decoded without touching other files; whether the chosen context is usable
// is kubeconfig.cpp's job.
#include <yaml-cpp/yaml.h>

#include <set>

#include "file_io.h"
#include "gpupool/kube/base64.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/kubeconfig.h"

namespace gpupool::kube::kubeconfig {

namespace {

std::string describe(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null:
      return "null";
    case YAML::NodeType::Scalar:
      return "a scalar";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Undefined:
      break;
  }
  return "nothing";
}

class Parser {
 public:
  explicit Parser(const std::string& file) : file_(file), dir_(detail::directory_of(file)) {}

  Config parse(const YAML::Node& root) {
    Config config;
    config.files = {file_};
    if (!root.IsDefined() || root.IsNull()) return config;  // an empty file
    if (!root.IsMap()) fail("(top level)", "expected a map, got " + describe(root));

    parse_list(root, "clusters", "cluster", [&](const std::string& name, const YAML::Node& body, const Origin& origin) {
      config.clusters.emplace(name, parse_cluster(body, origin));
    });
    parse_list(root, "users", "user", [&](const std::string& name, const YAML::Node& body, const Origin& origin) {
      config.users.emplace(name, parse_user(body, origin));
    });
    parse_list(root, "contexts", "context", [&](const std::string& name, const YAML::Node& body, const Origin& origin) {
      config.contexts.emplace(name, parse_context(body, origin));
    });
    config.current_context = string_field(root, "current-context", "");
    if (!config.current_context.empty()) config.current_context_file = file_;
    return config;
  }

 private:
  [[noreturn]] void fail(const std::string& field, const std::string& reason) const {
    throw ConfigError("kubeconfig " + file_ + ": " + field + ": " + reason);
  }

  static std::string join(const std::string& prefix, const std::string& key) {
    return prefix.empty() ? key : prefix + "." + key;
  }

  // The value at `key` of the map `node` (undefined when absent).
  static YAML::Node child(const YAML::Node& node, const char* key) { return node[key]; }

  std::string string_field(const YAML::Node& map, const char* key, const std::string& prefix) const {
    const YAML::Node v = child(map, key);
    if (!v.IsDefined() || v.IsNull()) return "";
    if (!v.IsScalar()) fail(join(prefix, key), "expected a string, got " + describe(v));
    return v.Scalar();
  }

  bool bool_field(const YAML::Node& map, const char* key, const std::string& prefix) const {
    const YAML::Node v = child(map, key);
    if (!v.IsDefined() || v.IsNull()) return false;
    bool b = false;
    if (!v.IsScalar() || !YAML::convert<bool>::decode(v, b)) {
      fail(join(prefix, key), "expected true or false, got " + (v.IsScalar() ? "\"" + v.Scalar() + "\"" : describe(v)));
    }
    return b;
  }

  // A map-valued field; an undefined node when absent or null.
  YAML::Node map_field(const YAML::Node& map, const char* key, const std::string& prefix) const {
    const YAML::Node v = child(map, key);
    if (!v.IsDefined() || v.IsNull()) return YAML::Node(YAML::NodeType::Undefined);
    if (!v.IsMap()) fail(join(prefix, key), "expected a map, got " + describe(v));
    return v;
  }

  // A list-valued field; an empty list when absent or null.
  YAML::Node list_field(const YAML::Node& map, const char* key, const std::string& prefix) const {
    const YAML::Node v = child(map, key);
    if (!v.IsDefined() || v.IsNull()) return YAML::Node(YAML::NodeType::Sequence);
    if (!v.IsSequence()) fail(join(prefix, key), "expected a list, got " + describe(v));
    return v;
  }

  std::string base64_field(const YAML::Node& map, const char* key, const std::string& prefix) const {
    const std::string text = string_field(map, key, prefix);
    if (text.empty()) return "";
    auto decoded = base64_decode(text);
    if (!decoded) fail(join(prefix, key), "not valid base64");
    if (decoded->empty()) fail(join(prefix, key), "decodes to nothing");
    return *decoded;
  }

  std::string path_field(const YAML::Node& map, const char* key, const std::string& prefix) const {
    return detail::resolve_path(dir_, string_field(map, key, prefix));
  }

  // A list of {name: ..., <body_key>: {...}} entries, e.g. clusters.
  template <typename F>
  void parse_list(const YAML::Node& root, const char* list_key, const char* body_key, F&& add) {
    const YAML::Node list = list_field(root, list_key, "");
    std::set<std::string> seen;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string at = std::string(list_key) + "[" + std::to_string(i) + "]";
      const YAML::Node entry = list[i];
      if (!entry.IsMap()) fail(at, "expected a map with name and " + std::string(body_key) + ", got " + describe(entry));
      const std::string name = string_field(entry, "name", at);
      if (name.empty()) fail(at + ".name", "missing");
      if (!seen.insert(name).second) fail(at + ".name", "duplicate name \"" + name + "\"");
      const YAML::Node body = map_field(entry, body_key, at);
      add(name, body, Origin{file_, at});
    }
  }

  Cluster parse_cluster(const YAML::Node& body, const Origin& origin) const {
    Cluster c;
    c.origin = origin;
    if (!body.IsDefined()) return c;
    const std::string at = origin.field + ".cluster";
    c.server = string_field(body, "server", at);
    c.certificate_authority = path_field(body, "certificate-authority", at);
    c.certificate_authority_data = base64_field(body, "certificate-authority-data", at);
    c.insecure_skip_tls_verify = bool_field(body, "insecure-skip-tls-verify", at);
    c.tls_server_name = string_field(body, "tls-server-name", at);
    c.proxy_url = string_field(body, "proxy-url", at);
    return c;
  }

  User parse_user(const YAML::Node& body, const Origin& origin) const {
    User u;
    u.origin = origin;
    if (!body.IsDefined()) return u;
    const std::string at = origin.field + ".user";
    u.token = string_field(body, "token", at);
    u.token_file = path_field(body, "tokenFile", at);
    u.client_certificate = path_field(body, "client-certificate", at);
    u.client_key = path_field(body, "client-key", at);
    u.client_certificate_data = base64_field(body, "client-certificate-data", at);
    u.client_key_data = base64_field(body, "client-key-data", at);
    const YAML::Node exec = map_field(body, "exec", at);
    if (exec.IsDefined()) u.exec = parse_exec(exec, at + ".exec");
    for (const char* key : {"username", "password", "auth-provider", "as", "as-uid", "as-groups", "as-user-extra"}) {
      const YAML::Node v = child(body, key);
      if (v.IsDefined() && !v.IsNull()) u.unsupported.emplace_back(key);
    }
    return u;
  }

  ExecConfig parse_exec(const YAML::Node& body, const std::string& at) const {
    ExecConfig e;
    e.command = string_field(body, "command", at);
    // As client-go does: a command with a slash is a path relative to the
    // kubeconfig; a bare name is looked up in $PATH when run.
    if (e.command.find('/') != std::string::npos) e.command = detail::resolve_path(dir_, e.command);
    const YAML::Node args = list_field(body, "args", at);
    for (std::size_t i = 0; i < args.size(); ++i) {
      const YAML::Node a = args[i];
      if (!a.IsScalar()) fail(at + ".args[" + std::to_string(i) + "]", "expected a string, got " + describe(a));
      e.args.push_back(a.Scalar());
    }
    const YAML::Node env = list_field(body, "env", at);
    for (std::size_t i = 0; i < env.size(); ++i) {
      const std::string env_at = at + ".env[" + std::to_string(i) + "]";
      const YAML::Node v = env[i];
      if (!v.IsMap()) fail(env_at, "expected a map with name and value, got " + describe(v));
      ExecEnvVar var{string_field(v, "name", env_at), string_field(v, "value", env_at)};
      if (var.name.empty() || var.name.find('=') != std::string::npos) fail(env_at + ".name", "missing or invalid");
      e.env.push_back(std::move(var));
    }
    e.api_version = string_field(body, "apiVersion", at);
    e.install_hint = string_field(body, "installHint", at);
    e.provide_cluster_info = bool_field(body, "provideClusterInfo", at);
    const std::string mode = string_field(body, "interactiveMode", at);
    if (mode.empty() || mode == "IfAvailable") {
      e.interactive_mode = ExecInteractiveMode::IfAvailable;
    } else if (mode == "Never") {
      e.interactive_mode = ExecInteractiveMode::Never;
    } else if (mode == "Always") {
      e.interactive_mode = ExecInteractiveMode::Always;
    } else {
      fail(at + ".interactiveMode", "\"" + mode + "\" is not one of Never, IfAvailable, Always");
    }
    return e;
  }

  Context parse_context(const YAML::Node& body, const Origin& origin) const {
    Context c;
    c.origin = origin;
    if (!body.IsDefined()) return c;
    const std::string at = origin.field + ".context";
    c.cluster = string_field(body, "cluster", at);
    c.user = string_field(body, "user", at);
    c.ns = string_field(body, "namespace", at);
    return c;
  }

  std::string file_;
  std::string dir_;
};

}  // namespace

Config parse(std::string_view yaml, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    throw ConfigError("kubeconfig " + file + ": line " + std::to_string(e.mark.line + 1) + ", column " +
                      std::to_string(e.mark.column + 1) + ": malformed YAML: " + e.msg);
  }
  try {
    return Parser(file).parse(root);
  } catch (const YAML::Exception& e) {
    // Shapes the checks above did not foresee; yaml-cpp's message has no secrets.
    throw ConfigError("kubeconfig " + file + ": line " + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
}

Config read_file(const std::string& file) {
  detail::FileContents contents = detail::read_small_file(file);
  if (!contents.ok) {
    throw ConfigError("kubeconfig " + file + ": " + (contents.not_found ? std::string("file not found") : "cannot read: " + contents.error));
  }
  return parse(contents.data, file);
}

}  // namespace gpupool::kube::kubeconfig
