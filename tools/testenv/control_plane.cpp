#include "gpupool/testenv/control_plane.h"

#include <rapidjson/document.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <thread>

#include "component_args.h"
#include "files.h"
#include "gpupool/testenv/process.h"
#include "gpupool/testenv/http_probe.h"
#include "identities.h"
#include "kwok_config.h"
#include "layout.h"
#include "gpupool/testenv/ports.h"

namespace gpupool::testenv {

using namespace detail;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kLogTailLines = 30;
constexpr int kStartAttempts = 3;
constexpr auto kStopGrace = std::chrono::seconds(10);
constexpr auto kProbeInterval = std::chrono::milliseconds(100);

// A start that failed; port_clash says another process took one of our ports
// between picking it and the component binding it, so a retry can succeed.
struct StartFailure : std::runtime_error {
  StartFailure(const std::string& what, bool clash) : std::runtime_error(what), port_clash(clash) {}
  bool port_clash;
};

bool keep_state_requested() {
  const char* v = std::getenv("GPUPOOL_TESTENV_KEEP_STATE");
  return v && std::string(v) == "1";
}

std::string make_temp_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/gpupool-testenv-XXXXXX";
  if (!::mkdtemp(templ.data())) throw std::runtime_error("cannot create a temporary state dir under " + templ);
  return templ;
}

std::string now_utc() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

struct Component {
  std::string name;  // binary name, log file name
  std::vector<std::string> args;
  std::vector<std::string> env;
  Process proc;
  std::string binary;  // empty: `name` in the bin dir
};

class ControlPlane::Impl {
 public:
  Options opts;
  Layout layout;
  bool temp_state = false;
  TokenFile tokens;
  std::string ca_pem;
  std::vector<Component> components;  // in start order

  // Directories, certificates, tokens, kubeconfigs and kwok's config.
  void prepare() {
    for (const char* sub : {"pki", "auth", "etcd", "kwok", "logs", "run"}) {
      std::filesystem::create_directories(layout.path(sub));
    }
    ::chmod(layout.path("etcd").c_str(), 0700);  // etcd refuses a world-readable data dir
    ::chmod(layout.path("auth").c_str(), 0700);
    layout.pki = ensure_pki(layout.path("pki"));
    ca_pem = read_file(layout.pki.ca_crt);

    auto ids = default_identities();
    ids.insert(ids.end(), opts.extra_identities.begin(), opts.extra_identities.end());
    tokens = TokenFile::ensure(layout.token_file(), ids);

    std::string server = layout.server();
    write_file(layout.admin_kubeconfig(), kubeconfig_yaml(server, ca_pem, kAdminUser, tokens.token_for(kAdminUser)),
               0600);
    write_file(layout.kubeconfig("kube-controller-manager"),
               kubeconfig_yaml(server, ca_pem, "system:kube-controller-manager",
                               tokens.token_for("system:kube-controller-manager")),
               0600);
    write_file(layout.kubeconfig("kube-scheduler"),
               kubeconfig_yaml(server, ca_pem, "system:kube-scheduler", tokens.token_for("system:kube-scheduler")),
               0600);
    write_file(layout.kubeconfig("kwok"), kubeconfig_yaml(server, ca_pem, kKwokUser, tokens.token_for(kKwokUser)),
               0600);
    write_file(layout.kwok_config(), kwok_config_yaml(opts.node_lease_seconds, opts.node_lease_parallelism));
  }

  // With $GPUPOOL_AUDIT_DIR set (tools/dev/test.sh sets it), kube-apiserver
  // writes an audit log there: every request of the admin user and of
  // service accounts (what our components use in tests), at Metadata level.
  // test/rbac/rbac_usage_check.py reads them all after the integration tests
  // and compares the controller's and the agent's requests with their RBAC.
  std::vector<std::string> audit_flags() {
    const char* dir = std::getenv("GPUPOOL_AUDIT_DIR");
    if (dir == nullptr || *dir == '\0') return {};
    std::filesystem::create_directories(dir);
    const std::string policy = layout.path("audit-policy.yaml");
    write_file(policy,
               "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n"
               "- level: Metadata\n  users: [" + std::string(kAdminUser) + "]\n"
               "- level: Metadata\n  userGroups: [\"system:serviceaccounts:gpupool-system\"]\n"
               "- level: None\n");
    static std::atomic<int> serial{0};
    const std::string log = std::string(dir) + "/audit-" + std::to_string(::getpid()) + "-" +
                            std::to_string(serial++) + ".jsonl";
    return {"--audit-policy-file=" + policy, "--audit-log-path=" + log, "--audit-log-format=json",
            "--audit-log-maxsize=0"};
  }

  void build_components() {
    components.clear();
    components.push_back({"etcd", etcd_args(layout), {}, {}, {}});
    auto apiserver_extra = opts.extra_apiserver_flags;
    const auto audit = audit_flags();
    apiserver_extra.insert(apiserver_extra.end(), audit.begin(), audit.end());
    components.push_back({"kube-apiserver", apiserver_args(layout, apiserver_extra), {}, {}, opts.apiserver_binary});
    if (opts.controller_manager) {
      components.push_back({"kube-controller-manager", controller_manager_args(layout, opts.node_lease_seconds), {}, {}, {}});
    }
    if (opts.scheduler) components.push_back({"kube-scheduler", scheduler_args(layout), {}, {}, {}});
    // kwok reads ~/.kwok/kwok.yaml before --config when it exists: give it a home of its own.
    if (opts.kwok) components.push_back({"kwok", kwok_args(layout, opts.node_lease_seconds), {"HOME=" + layout.path("kwok")}, {}, {}});
  }

  Component& component(const std::string& name) {
    for (auto& c : components) {
      if (c.name == name) return c;
    }
    throw std::logic_error("no component " + name);
  }

  void launch(Component& c) {
    std::string marker = "----- " + now_utc() + " gpupool testenv starting " + c.name;
    for (const auto& a : c.args) marker += " " + a;
    marker += " -----\n";
    {
      std::FILE* f = std::fopen(layout.log(c.name).c_str(), "a");
      if (f) {
        std::fputs(marker.c_str(), f);
        std::fclose(f);
      }
    }
    SpawnSpec spec;
    spec.path = c.binary.empty() ? layout.bin(c.name) : c.binary;
    spec.args = c.args;
    spec.env = c.env;
    spec.log_file = layout.log(c.name);
    c.proc = Process::spawn(spec);
    spdlog::debug("testenv: started {} (pid {}), log {}", c.name, c.proc.pid(), layout.log(c.name));
  }

  [[noreturn]] void fail(const Component& c, const std::string& what) {
    std::string log = layout.log(c.name);
    std::string tail = tail_file(log, kLogTailLines);
    bool clash = tail.find("address already in use") != std::string::npos;
    std::string msg = "gpupool testenv: " + c.name + " " + what + "\n--- last " + std::to_string(kLogTailLines) +
                      " lines of " + log + " ---\n" + tail;
    if (temp_state && !keep_state_requested()) msg += "\n(set GPUPOOL_TESTENV_KEEP_STATE=1 to keep the state dir)";
    throw StartFailure(msg, clash);
  }

  // Throws for the first launched component that has exited.
  void check_alive() {
    for (auto& c : components) {
      if (c.proc.valid() && !c.proc.running()) {
        fail(c, "exited with status " + std::to_string(c.proc.exit_status().value_or(-1)));
      }
    }
  }

  // Polls `probe` until it returns true; fails naming `c` at the deadline or
  // as soon as any component exits. `probe` sets `last` to why it is not ready.
  void wait_for(const Component& c, Clock::time_point deadline, const std::string& what,
                const std::function<bool(std::string& last)>& probe) {
    std::string last;
    for (;;) {
      check_alive();
      if (probe(last)) return;
      if (Clock::now() >= deadline) {
        fail(c, "did not become ready (" + what + ") within the start timeout of " +
                    std::to_string(opts.ready_timeout.count()) + "s; last probe: " + last);
      }
      std::this_thread::sleep_for(kProbeInterval);
    }
  }

  // A probe: GET `url`, ready on HTTP 200 whose body contains `expect`.
  std::function<bool(std::string&)> http_probe(HttpRequest req, std::string expect = "") {
    return [req = std::move(req), expect = std::move(expect)](std::string& last) {
      HttpRequest r = req;
      r.timeout = std::chrono::seconds(3);
      HttpResponse resp = http_request(r);
      if (resp.status == 200 && resp.body.find(expect) != std::string::npos) return true;
      last = resp.status ? "HTTP " + std::to_string(resp.status) + ": " + resp.body.substr(0, 300) : resp.error;
      return false;
    };
  }

  HttpRequest api_request(const std::string& path) const {
    HttpRequest r;
    r.url = layout.server() + path;
    r.ca_file = layout.pki.ca_crt;
    r.bearer_token = tokens.token_for(kAdminUser);
    return r;
  }

  void wait_apiserver_ready(Clock::time_point deadline) {
    wait_for(component("kube-apiserver"), deadline, "GET /readyz", http_probe(api_request("/readyz"), "ok"));
  }

  void wait_etcd_healthy(Clock::time_point deadline) {
    HttpRequest etcd_health;
    etcd_health.url = "http://127.0.0.1:" + std::to_string(layout.ports.etcd_client) + "/health";
    wait_for(component("etcd"), deadline, "GET /health", http_probe(etcd_health, "\"health\":\"true\""));
  }

  void start_all(Clock::time_point deadline) {
    build_components();
    launch(component("etcd"));
    wait_etcd_healthy(deadline);

    launch(component("kube-apiserver"));
    wait_apiserver_ready(deadline);

    // The rest start together and only need the apiserver.
    for (auto& c : components) {
      if (!c.proc.valid()) launch(c);
    }
    auto healthz = [](int port, bool tls) {
      HttpRequest r;
      r.url = std::string(tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(port) + "/healthz";
      r.insecure = tls;  // self-signed serving certificates
      return r;
    };
    if (opts.controller_manager) {
      wait_for(component("kube-controller-manager"), deadline, "GET /healthz",
               http_probe(healthz(layout.ports.controller_manager, true), "ok"));
    }
    if (opts.scheduler) {
      wait_for(component("kube-scheduler"), deadline, "GET /healthz",
               http_probe(healthz(layout.ports.scheduler, true), "ok"));
    }
    if (opts.kwok) {
      wait_for(component("kwok"), deadline, "GET /healthz", http_probe(healthz(layout.ports.kwok, false), "ok"));
    }
    if (opts.controller_manager) {
      // The serviceaccount controller at work: pods can be created in "default".
      wait_for(component("kube-controller-manager"), deadline, "ServiceAccount default/default exists",
               http_probe(api_request("/api/v1/namespaces/default/serviceaccounts/default")));
    }
  }

  // SIGTERM to everything but etcd at once, then etcd last so the others can
  // shut down cleanly; SIGKILL for any that outlast the grace period.
  void stop_all() {
    for (auto it = components.rbegin(); it != components.rend(); ++it) {
      if (it->name != "etcd") it->proc.signal(SIGTERM);
    }
    for (auto it = components.rbegin(); it != components.rend(); ++it) {
      if (it->name != "etcd") it->proc.terminate(kStopGrace);
    }
    for (auto& c : components) {
      if (c.name == "etcd") c.proc.terminate(kStopGrace);
    }
  }

  void remove_temp_state() {
    if (!temp_state || layout.state_dir.empty()) return;
    temp_state = false;  // once
    if (keep_state_requested()) {
      spdlog::info("testenv: kept state dir {} (GPUPOOL_TESTENV_KEEP_STATE=1)", layout.state_dir);
      return;
    }
    std::error_code ec;
    std::filesystem::remove_all(layout.state_dir, ec);
    if (ec) spdlog::warn("testenv: could not remove {}: {}", layout.state_dir, ec.message());
    layout.state_dir.clear();
  }
};

std::string find_bin_dir() {
  static std::mutex mu;
  static std::string cached;
  std::lock_guard lock(mu);
  if (!cached.empty()) return cached;

  std::string dir;
  const char* env = std::getenv("GPUPOOL_CONTROLPLANE_BIN");
  if (env && *env) {
    dir = env;
  } else {
    std::string script = std::string(GPUPOOL_SOURCE_DIR) + "/tools/controlplane/build.sh";
    spdlog::info("testenv: locating the control-plane binaries with {} --bin-dir (a first build takes long)", script);
    CommandResult r = run_command("bash", {script, "--bin-dir"}, "", std::chrono::hours(2));
    if (r.status != 0) {
      throw std::runtime_error(script + " --bin-dir failed with status " + std::to_string(r.status) + ":\n" +
                               (r.err.size() > 4000 ? r.err.substr(r.err.size() - 4000) : r.err));
    }
    std::string out = r.out;
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    dir = out.substr(out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
  }
  for (const char* name : {"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl", "kwok"}) {
    std::string path = dir + "/" + name;
    if (::access(path.c_str(), X_OK) != 0) {
      throw std::runtime_error("control-plane binary " + path + " is missing or not executable" +
                               (env && *env ? " (from $GPUPOOL_CONTROLPLANE_BIN)" : ""));
    }
  }
  cached = dir;
  return cached;
}

std::unique_ptr<ControlPlane> ControlPlane::start(Options opts) {
  auto t0 = Clock::now();
  auto deadline = t0 + opts.ready_timeout;
  auto impl = std::make_unique<Impl>();
  impl->layout.bin_dir = find_bin_dir();
  if (opts.state_dir.empty()) {
    impl->layout.state_dir = make_temp_dir();
    impl->temp_state = true;
  } else {
    std::filesystem::create_directories(opts.state_dir);
    impl->layout.state_dir = std::filesystem::absolute(opts.state_dir).string();
  }
  impl->opts = std::move(opts);

  std::string ports_file = impl->layout.path("ports");
  for (int attempt = 1;; ++attempt) {
    try {
      if (attempt == 1) {
        impl->layout.ports = choose_ports(ports_file);
      } else {
        auto fresh = pick_free_ports(6);
        impl->layout.ports = Ports{fresh[0], fresh[1], fresh[2], fresh[3], fresh[4], fresh[5]};
      }
      impl->prepare();
      impl->start_all(deadline);
      save_ports(ports_file, impl->layout.ports);
      spdlog::info("testenv: control plane ready at {} in {:.1f}s (state {})", impl->layout.server(),
                   seconds_since(t0), impl->layout.state_dir);
      return std::unique_ptr<ControlPlane>(new ControlPlane(std::move(impl)));
    } catch (const StartFailure& f) {
      impl->stop_all();
      if (f.port_clash && attempt < kStartAttempts && Clock::now() < deadline) {
        spdlog::warn("testenv: a port was taken during start (attempt {}), retrying with other ports", attempt);
        continue;
      }
      impl->remove_temp_state();
      throw std::runtime_error(f.what());
    } catch (...) {
      impl->stop_all();
      impl->remove_temp_state();
      throw;
    }
  }
}

ControlPlane::ControlPlane(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

ControlPlane::~ControlPlane() {
  try {
    stop();
  } catch (const std::exception& e) {
    spdlog::error("testenv: stopping the control plane failed: {}", e.what());
  }
}

void ControlPlane::stop() {
  if (!impl_) return;
  bool was_running = running();
  impl_->stop_all();
  impl_->components.clear();
  impl_->remove_temp_state();
  if (was_running) spdlog::info("testenv: control plane stopped");
}

bool ControlPlane::running() const {
  for (auto& c : impl_->components) {
    if (c.proc.running()) return true;
  }
  return false;
}

std::string ControlPlane::server() const { return impl_->layout.server(); }
std::string ControlPlane::kubeconfig_path() const { return impl_->layout.admin_kubeconfig(); }
std::string ControlPlane::ca_file() const { return impl_->layout.pki.ca_crt; }
std::string ControlPlane::ca_pem() const { return impl_->ca_pem; }
std::string ControlPlane::admin_token() const { return impl_->tokens.token_for(kAdminUser); }
std::string ControlPlane::token_for(const std::string& user) const { return impl_->tokens.token_for(user); }
std::string ControlPlane::node_token(const std::string& node) const {
  return impl_->tokens.token_for("system:node:" + node);
}
std::string ControlPlane::kubeconfig_for(const std::string& user) const { return kubeconfig_for(user, server()); }
std::string ControlPlane::kubeconfig_for(const std::string& user, const std::string& server_url) const {
  const std::string& token = impl_->tokens.token_for(user);
  std::string name = user;
  if (server_url != server()) name += "@" + server_url.substr(server_url.find("://") + 3);
  std::string file;
  for (char c : name) file += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  std::string path = impl_->layout.path("auth/user-" + file + ".kubeconfig");
  write_file(path, kubeconfig_yaml(server_url, impl_->ca_pem, user, token), 0600);
  return path;
}
std::string ControlPlane::bin_dir() const { return impl_->layout.bin_dir; }
std::string ControlPlane::kubectl_path() const { return impl_->layout.bin("kubectl"); }
std::string ControlPlane::state_dir() const { return impl_->layout.state_dir; }
std::string ControlPlane::log_dir() const { return impl_->layout.path("logs"); }
int ControlPlane::etcd_client_port() const { return impl_->layout.ports.etcd_client; }

CommandResult ControlPlane::kubectl_result(const std::vector<std::string>& args, const std::string& stdin_data) const {
  std::vector<std::string> full = {"--kubeconfig=" + kubeconfig_path()};
  full.insert(full.end(), args.begin(), args.end());
  return run_command(kubectl_path(), full, stdin_data, std::chrono::minutes(5));
}

int ControlPlane::kubectl(const std::vector<std::string>& args, std::string* output,
                          const std::string& stdin_data) const {
  CommandResult r = kubectl_result(args, stdin_data);
  if (output) {
    *output = r.out;
    if (r.status != 0) *output += r.err;
  }
  return r.status;
}

void ControlPlane::restart_apiserver() {
  auto t0 = Clock::now();
  Component& api = impl_->component("kube-apiserver");
  api.proc.terminate(kStopGrace);
  try {
    impl_->launch(api);
    impl_->wait_apiserver_ready(Clock::now() + impl_->opts.ready_timeout);
  } catch (const StartFailure& f) {
    throw std::runtime_error(f.what());
  }
  spdlog::info("testenv: kube-apiserver restarted in {:.1f}s", seconds_since(t0));
}

void ControlPlane::restart_etcd_and_apiserver() {
  auto t0 = Clock::now();
  Component& api = impl_->component("kube-apiserver");
  Component& etcd = impl_->component("etcd");
  api.proc.terminate(kStopGrace);
  api.proc = Process();  // reaped: not a component that died while etcd starts
  etcd.proc.terminate(kStopGrace);
  try {
    const auto deadline = Clock::now() + impl_->opts.ready_timeout;
    impl_->launch(etcd);
    impl_->wait_etcd_healthy(deadline);
    impl_->launch(api);
    impl_->wait_apiserver_ready(deadline);
  } catch (const StartFailure& f) {
    throw std::runtime_error(f.what());
  }
  spdlog::info("testenv: etcd and kube-apiserver restarted in {:.1f}s", seconds_since(t0));
}

std::int64_t ControlPlane::compact_etcd() {
  std::string base = "http://127.0.0.1:" + std::to_string(impl_->layout.ports.etcd_client);
  auto post = [&](const std::string& path, const std::string& body) {
    HttpRequest r;
    r.method = "POST";
    r.url = base + path;
    r.body = body;
    r.timeout = std::chrono::seconds(30);
    return http_request(r);
  };
  // Any range answers with the store's current revision in its header.
  HttpResponse range = post("/v3/kv/range", R"({"key":"Lw=="})");  // key "/"
  rapidjson::Document doc;
  doc.Parse(range.body.c_str());
  if (range.status != 200 || doc.HasParseError() || !doc.IsObject() || !doc.HasMember("header") ||
      !doc["header"].IsObject() || !doc["header"].HasMember("revision") || !doc["header"]["revision"].IsString()) {
    throw std::runtime_error("etcd range for the current revision failed: " +
                             (range.status ? "HTTP " + std::to_string(range.status) + " " + range.body : range.error));
  }
  std::int64_t revision = std::stoll(doc["header"]["revision"].GetString());
  HttpResponse compact =
      post("/v3/kv/compaction", R"({"revision":")" + std::to_string(revision) + R"(","physical":true})");
  // The apiserver compacts on its own too; "already compacted" is just as good.
  if (compact.status != 200 && compact.body.find("compacted") == std::string::npos) {
    throw std::runtime_error("etcd compaction at revision " + std::to_string(revision) + " failed: " +
                             (compact.status ? "HTTP " + std::to_string(compact.status) + " " + compact.body
                                             : compact.error));
  }
  spdlog::debug("testenv: compacted etcd at revision {}", revision);
  return revision;
}

std::vector<pid_t> ControlPlane::pids() const {
  std::vector<pid_t> out;
  for (auto& c : impl_->components) {
    if (c.proc.running()) out.push_back(c.proc.pid());
  }
  return out;
}

}  // namespace gpupool::testenv
