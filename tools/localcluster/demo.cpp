#include "demo.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdio>
#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <spdlog/spdlog.h>

#include "gpupool/common/rfc3339.h"
#include "gpupool/explain/gate_tables.h"
#include "gpupool/explain/status_tables.h"
#include "gpupool/kube/client.h"
#include "gpupool/kube/config.h"
#include "gpupool/kube/errors.h"
#include "gpupool/testenv/kwok_nodes.h"
#include "gpupool/testenv/wait.h"

namespace gpupool::localcluster {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// The simulated GPU nodes: one group per model, `nodes` of each.
struct Model {
  const char* id;      // catalog id, also the node label gpupool.io/gpu-model the pools select on
  const char* prefix;  // node names: <prefix><i>
  const char* vendor;
};
constexpr Model kModels[] = {
    {"a100-sxm4-80gb", "a100-node-", "nvidia"},
    {"h100-sxm5-80gb", "h100-node-", "nvidia"},
    {"t4-16gb", "t4-node-", "nvidia"},
    {"mi300x-192gb", "mi300x-node-", "amd"},
};
// The driver a node starts with when no pool of the manifests selects its model.
constexpr const char* kFallbackDriver = "550.54.15";

const kube::GroupVersionResource kGpuPools{"gpupool.io", "v1alpha1", "gpupools"};
const kube::GroupVersionResource kGpuNodes{"gpupool.io", "v1alpha1", "gpunodes"};
const kube::GroupVersionResource kTenantQuotas{"gpupool.io", "v1alpha1", "tenantquotas"};
const kube::GroupVersionResource kEvents{"events.k8s.io", "v1", "events"};
const kube::GroupVersionResource kMutatingWebhooks{"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"};
const kube::GroupVersionResource kPolicyBindings{"admissionregistration.k8s.io", "v1",
                                                 "validatingadmissionpolicybindings"};

bool port_free(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

// A loopback port the kernel hands out (released again for the controller).
int any_free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Written beside and renamed over: the agent re-reads its world whenever the
// file changes and must never see half of it.
void write_file(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << content;
    if (!out) throw std::runtime_error("cannot write " + tmp);
  }
  fs::rename(tmp, path);
}

std::string absolute(const std::string& path) {
  if (path.empty()) return path;
  std::error_code ec;
  auto p = fs::absolute(path, ec);
  return ec ? path : p.lexically_normal().string();
}

// The driver each model's pool wants, from the manifests (kubectl kustomize
// output): pools selecting gpupool.io/gpu-model by matchLabels or by an `In`
// expression. The nodes start with it, so the demo converges without waiting
// for driver installs; the pools' MIG layouts, partitions and sharing are
// still carried out by the agents.
std::map<std::string, std::string> pool_drivers(const std::string& yaml) {
  std::map<std::string, std::string> out;
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(yaml);
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(std::string("reading the demo manifests: ") + e.what());
  }
  for (const auto& d : docs) {
    if (!d.IsMap() || !d["kind"] || d["kind"].as<std::string>("") != "GPUPool") continue;
    const YAML::Node spec = d["spec"];
    if (!spec || !spec["driver"] || !spec["driver"]["version"]) continue;
    const std::string version = spec["driver"]["version"].as<std::string>("");
    const YAML::Node selector = spec["nodeSelector"];
    if (!selector) continue;
    if (const YAML::Node labels = selector["matchLabels"]; labels && labels["gpupool.io/gpu-model"]) {
      out.emplace(labels["gpupool.io/gpu-model"].as<std::string>(""), version);
    }
    if (const YAML::Node exprs = selector["matchExpressions"]; exprs && exprs.IsSequence()) {
      for (const auto& e : exprs) {
        if (e["key"].as<std::string>("") != "gpupool.io/gpu-model" || e["operator"].as<std::string>("") != "In") continue;
        for (const auto& v : e["values"]) out.emplace(v.as<std::string>(""), version);
      }
    }
  }
  return out;
}

std::vector<const rapidjson::Value*> items_of(const rapidjson::Document& list) {
  std::vector<const rapidjson::Value*> out;
  if (list.IsObject() && list.HasMember("items") && list["items"].IsArray()) {
    for (const auto& item : list["items"].GetArray()) out.push_back(&item);
  }
  return out;
}

std::string str_at(const rapidjson::Value& v, std::initializer_list<const char*> path) {
  const rapidjson::Value* cur = &v;
  for (const char* p : path) {
    if (!cur->IsObject() || !cur->HasMember(p)) return "";
    cur = &(*cur)[p];
  }
  return cur->IsString() ? cur->GetString() : "";
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string clock_time(std::chrono::system_clock::time_point t) {
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm local{};
  localtime_r(&tt, &local);
  char text[16];
  std::strftime(text, sizeof text, "%H:%M:%S", &local);
  return text;
}

}  // namespace

struct Demo::Impl {
  const testenv::ControlPlane& cluster;
  DemoOptions opts;
  std::string dir;
  std::unique_ptr<kube::Client> client;
  struct Node {
    std::string name;
    std::string model;
  };
  std::vector<Node> nodes;
  std::vector<std::pair<std::string, testenv::Process>> agents;  // by node
  testenv::Process controller;
  std::string webhook_url;
  std::size_t components = 0;  // control-plane processes when the demo started
  bool tty = false;
  // When the agents were started: a GPUNode status older than that is the
  // last run's (the state is kept), not a report of this one.
  std::chrono::system_clock::time_point agents_started;
  bool last_settled = false;    // the previous frame found everything settled
  bool last_converged = false;  // ... and the one before it: what was announced
  std::string last_key;

  Impl(const testenv::ControlPlane& c, DemoOptions o) : cluster(c), opts(std::move(o)) {
    dir = cluster.state_dir() + "/demo";
    opts.agent = absolute(opts.agent);
    opts.controller = absolute(opts.controller);
    opts.gpupoolctl = absolute(opts.gpupoolctl);
    opts.manifests = absolute(opts.manifests);
    opts.workloads = absolute(opts.workloads);
  }

  static void check(const std::atomic<bool>& cancel) {
    if (cancel) throw Cancelled();
  }

  // An answer worth trying again: the webhook not (yet) reachable, the API
  // server busy. Anything else (an invalid object) fails at once.
  static bool transient(const std::string& err) {
    for (const char* s : {"failed calling webhook", "connection refused", "InternalError", "ServiceUnavailable",
                          "Timeout", "timeout", "TooManyRequests", "the server is currently unable"}) {
      if (err.find(s) != std::string::npos) return true;
    }
    return false;
  }

  // kubectl until it succeeds: the validating webhook refuses gpupool.io
  // writes (failurePolicy Fail) until the controller serves it, and after a
  // restart its configuration still names the last run's port for a moment.
  void kubectl_until_ok(const std::vector<std::string>& args, const std::string& what, const std::atomic<bool>& cancel,
                        std::chrono::seconds timeout = 120s) {
    testenv::CommandResult last;
    bool warned = false;
    const bool ok = testenv::wait_until(
        [&] {
          check(cancel);
          last = cluster.kubectl_result(args);
          if (last.status != 0 && !transient(last.err)) throw std::runtime_error(what + " failed: " + last.out + last.err);
          if (last.status != 0 && !warned) {
            spdlog::info("localcluster: {} not accepted yet, retrying (the controller's webhook may be starting): {}",
                         what, last.err.substr(0, std::min<std::size_t>(last.err.find('\n'), 300)));
            warned = true;
          }
          return last.status == 0;
        },
        timeout, 2s);
    if (!ok) throw std::runtime_error(what + " failed: " + last.out + last.err);
  }

  void create_nodes(const std::map<std::string, std::string>& drivers, const std::atomic<bool>& cancel) {
    std::set<std::string> wanted;
    for (const Model& m : kModels) {
      check(cancel);
      testenv::NodeSpec spec;
      spec.name_prefix = m.prefix;
      spec.labels = {{"gpupool.io/gpu-model", m.id}, {"gpupool.io/vendor", m.vendor}};
      if (std::string(m.vendor) == "nvidia") spec.labels["nvidia.com/gpu.present"] = "true";
      for (const auto& n : testenv::create_kwok_nodes(cluster, opts.nodes, spec)) {
        nodes.push_back({n, m.id});
        wanted.insert(n);
      }
    }
    // Nodes of an earlier run with more nodes (or of `up`/`run` in the same
    // state dir) would stay in their pools without an agent: remove them.
    kube::ListOptions by_label;
    by_label.label_selector = std::string(testenv::kTestenvNodeLabel) + "=true";
    auto list = client->list(kube::ResourceRef{kube::core::nodes(), "", "", ""}, by_label);
    std::vector<std::string> stale;
    for (const auto* n : items_of(list)) {
      const std::string name = str_at(*n, {"metadata", "name"});
      if (!wanted.count(name)) stale.push_back(name);
    }
    if (!stale.empty()) {
      spdlog::info("localcluster: removing {} node(s) of an earlier run", stale.size());
      testenv::delete_nodes(cluster, stale);
    }
    spdlog::info("localcluster: {} simulated node(s) Ready ({} per model: {}, {}, {}, {})", nodes.size(), opts.nodes,
                 kModels[0].id, kModels[1].id, kModels[2].id, kModels[3].id);
    for (const auto& n : nodes) {
      auto it = drivers.find(n.model);
      const std::string driver = it != drivers.end() ? it->second : kFallbackDriver;
      write_file(dir + "/" + n.name + ".world.yaml",
                 "# The simulated machine of node " + n.name + " (gpupool-localcluster demo; rewritten at every start).\n"
                 "# Its driver is the one its pool wants, so no install waits for a maintenance window.\n"
                 "driverVersion: \"" + driver + "\"\n"
                 "gpus: [{model: " + n.model + ", count: " + std::to_string(opts.gpus_per_node) + "}]\n");
    }
  }

  void start_agents() {
    agents_started = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
    for (const auto& n : nodes) {
      testenv::SpawnSpec a;
      a.path = opts.agent;
      a.args = {"--kubeconfig", cluster.kubeconfig_path(), "--node-name", n.name, "--backend", "simulated",
                "--simulated-config", dir + "/" + n.name + ".world.yaml", "--simulated-state",
                dir + "/" + n.name + ".state.json", "--metrics-bind-address=0", "--health-probe-bind-address=0",
                // A status write at least every 10 s (default 300), the GPUs read every 10 s (default 30):
                // a resumed demo sees each agent's first report of this run within seconds, and the
                // screen's HEARTBEAT column moves.
                "--status-heartbeat=10", "--inventory-interval=10", "--log-format=json"};
      a.log_file = dir + "/agent-" + n.name + ".log";
      agents.emplace_back(n.name, testenv::Process::spawn(a));
    }
    spdlog::info("localcluster: a gpupool-agent per node (logs: {}/agent-<node>.log)", dir);
  }

  void start_controller() {
    // The last run's port when still free: its webhook configurations name it
    // until this controller rewrites them.
    const std::string port_file = dir + "/webhook-port";
    int port = 0;
    try {
      port = std::stoi(read_file(port_file));
    } catch (const std::exception&) {
    }
    if (port <= 0 || port > 65535 || !port_free(port)) port = any_free_port();
    if (port <= 0) throw std::runtime_error("no free loopback port for the controller's webhooks");
    write_file(port_file, std::to_string(port) + "\n");
    const std::string address = "127.0.0.1:" + std::to_string(port);
    webhook_url = "https://" + address;
    testenv::SpawnSpec c;
    c.path = opts.controller;
    c.args = {"--kubeconfig", cluster.kubeconfig_path(), "--metrics-bind-address=0", "--health-probe-bind-address=0",
              "--log-format=json", "--agent-namespace", "gpupool-system", "--webhook-bind-address", address,
              "--webhook-url", webhook_url};
    c.log_file = dir + "/controller.log";
    controller = testenv::Process::spawn(c);
    spdlog::info("localcluster: gpupool-controller runs, webhooks on {} (log: {}/controller.log)", webhook_url, dir);
  }

  // The namespaces the TenantQuotas cover (their own, or spec.namespaces).
  std::set<std::string> quota_namespaces() {
    std::set<std::string> out;
    auto list = client->list(kube::ResourceRef{kTenantQuotas, "", "", ""});
    for (const auto* q : items_of(list)) {
      const rapidjson::Value* spec = q->IsObject() && q->HasMember("spec") ? &(*q)["spec"] : nullptr;
      bool listed = false;
      if (spec && spec->IsObject() && spec->HasMember("namespaces") && (*spec)["namespaces"].IsArray()) {
        for (const auto& ns : (*spec)["namespaces"].GetArray()) {
          if (ns.IsString()) {
            out.insert(ns.GetString());
            listed = true;
          }
        }
      }
      if (!listed) out.insert(str_at(*q, {"metadata", "namespace"}));
    }
    return out;
  }

  // The gate's webhook (at this run's URL) and admission policy cover every
  // namespace a quota covers: pods created there from now on wait their turn.
  void wait_gate_covers(const std::atomic<bool>& cancel) {
    const auto namespaces = quota_namespaces();
    if (namespaces.empty()) return;
    std::string missing;
    const bool ok = testenv::wait_until(
        [&] {
          check(cancel);
          try {
            const std::string hook =
                kube::to_json(client->get(kube::ResourceRef{kMutatingWebhooks, "", "gpupool-mutating-webhook", ""}));
            const std::string binding =
                kube::to_json(client->get(kube::ResourceRef{kPolicyBindings, "", "gpupool-quota-gate", ""}));
            if (hook.find(webhook_url) == std::string::npos) {
              missing = "the gate webhook at " + webhook_url;
              return false;
            }
            for (const auto& ns : namespaces) {
              const std::string quoted = "\"" + ns + "\"";
              if (hook.find(quoted) == std::string::npos || binding.find(quoted) == std::string::npos) {
                missing = "namespace " + ns;
                return false;
              }
            }
            return true;
          } catch (const kube::ApiError& e) {
            missing = e.what();
            return false;
          }
        },
        120s, 1s);
    if (!ok) throw std::runtime_error("the quota gate never covered the tenants' namespaces (missing: " + missing + ")");
  }

  void start(const std::atomic<bool>& cancel) {
    fs::create_directories(dir);
    fs::remove(dir + "/converged");
    kube::KubeconfigOptions ko;
    ko.path = cluster.kubeconfig_path();
    kube::RestConfig rc = kube::load_kubeconfig(ko);
    rc.timeout = 10s;
    rc.user_agent = "gpupool-localcluster";
    client = std::make_unique<kube::Client>(rc);
    components = cluster.pids().size();

    auto rendered = cluster.kubectl_result({"kustomize", opts.manifests});
    if (rendered.status != 0) throw std::runtime_error("kubectl kustomize " + opts.manifests + ": " + rendered.err);
    const auto drivers = pool_drivers(rendered.out);

    create_nodes(drivers, cancel);
    check(cancel);
    start_agents();
    start_controller();
    kubectl_until_ok({"apply", "--server-side", "--force-conflicts", "-k", opts.manifests},
                     "applying the demo manifests (" + opts.manifests + ")", cancel);
    spdlog::info("localcluster: applied {}", opts.manifests);
    if (!opts.workloads.empty()) {
      wait_gate_covers(cancel);
      kubectl_until_ok({"apply", "--server-side", "--force-conflicts", "-f", opts.workloads},
                       "applying the tenants' workloads (" + opts.workloads + ")", cancel);
      spdlog::info("localcluster: applied {}", opts.workloads);
    }
  }

  std::string hints() const {
    std::string path = fs::path(cluster.kubectl_path()).parent_path().string();
    if (!opts.gpupoolctl.empty()) path += ":" + fs::path(opts.gpupoolctl).parent_path().string();
    std::string out;
    out += "Use it from another shell:\n";
    out += "  export KUBECONFIG=" + cluster.kubeconfig_path() + " PATH=" + path + ":$PATH\n";
    out += "  kubectl get gpupools,gpunodes; kubectl get tenantquotas,pods -A\n";
    if (!opts.gpupoolctl.empty()) {
      out += "  kubectl gpupool status -A; kubectl gpupool explain pool a100-80gb-mig; kubectl gpupool explain tq ml-research/research-a100\n";
    }
    out += "Logs: " + dir + "/{controller,agent-<node>}.log, control plane " + cluster.log_dir() + "\n";
    out += "Stop with Ctrl-C (or SIGTERM): everything stops, the state in " + cluster.state_dir() +
           " is kept and the next run resumes it.\n";
    return out;
  }

  struct Frame {
    std::string key;    // what changed, times left out
    std::string text;   // what is shown
    bool settled = false;    // this frame found nothing left to wait for
    bool converged = false;  // and so did the one before: announced
  };

  Frame frame() {
    Frame f;
    const auto now = std::chrono::system_clock::now();
    std::string error;
    rapidjson::Document pools, gpunodes, quotas, pods, events;
    try {
      pools = client->list(kube::ResourceRef{kGpuPools, "", "", ""});
      gpunodes = client->list(kube::ResourceRef{kGpuNodes, "", "", ""});
      quotas = client->list(kube::ResourceRef{kTenantQuotas, "", "", ""});
      pods = client->list(kube::ResourceRef{kube::core::pods(), "", "", ""});
      kube::ListOptions lo;
      lo.field_selector = "reason=WaitingForQuota";
      events = client->list(kube::ResourceRef{kEvents, "", "", ""}, lo);
    } catch (const std::exception& e) {
      error = e.what();
    }
    if (!error.empty()) {
      f.key = "error " + error;
      f.text = "demo: converging\ncannot read the cluster: " + error + "\n";
      return f;
    }
    const auto pool_items = items_of(pools), node_items = items_of(gpunodes), quota_items = items_of(quotas);
    const auto pod_items = items_of(pods), event_items = items_of(events);

    explain::Settled s = explain::settled(pool_items, quota_items, /*max=*/1000);
    // Every demo node reported and in a pool.
    std::map<std::string, const rapidjson::Value*> by_name;
    for (const auto* n : node_items) by_name[str_at(*n, {"metadata", "name"})] = n;
    long gpus = 0;
    for (const auto& n : nodes) {
      auto it = by_name.find(n.name);
      const rapidjson::Value* status =
          it != by_name.end() && it->second->IsObject() && it->second->HasMember("status") ? &(*it->second)["status"] : nullptr;
      if (status == nullptr || !status->IsObject() || !status->HasMember("gpus")) {
        s.waiting_on.push_back("GPUNode " + n.name + ": no report from its agent yet");
        s.settled = false;
        continue;
      }
      if ((*status)["gpus"].IsArray()) gpus += static_cast<long>((*status)["gpus"].Size());
      const auto heartbeat = parse_rfc3339(str_at(*it->second, {"status", "lastHeartbeatTime"}));
      if (!heartbeat || to_system_clock(*heartbeat) < agents_started) {
        s.waiting_on.push_back("GPUNode " + n.name + ": no report from its agent since this start");
        s.settled = false;
        continue;
      }
      if (str_at(*it->second, {"spec", "pool"}).empty()) {
        s.waiting_on.push_back("GPUNode " + n.name + ": in no pool yet");
        s.settled = false;
      }
    }
    if (s.waiting_on.size() > 5) {
      const auto more = s.waiting_on.size() - 4;
      s.waiting_on.resize(4);
      s.waiting_on.push_back("and " + std::to_string(more) + " more");
    }
    f.settled = s.settled;
    // Settled twice in a row, a refresh apart: the controller has had time to
    // act on the agents' latest reports.
    f.converged = s.settled && last_settled;

    const std::size_t gated = explain::gated_pod_count(pod_items);
    std::string head;
    if (f.converged) {
      head = "demo: converged\nevery GPUPool Ready, every TenantQuota Granted: " + std::to_string(nodes.size()) +
             " nodes, " + std::to_string(gpus) + " GPUs, " + std::to_string(gated) + " pod(s) waiting for quota\n";
    } else {
      head = "demo: converging\nwaiting on: " +
             (s.settled ? std::string("nothing; confirming at the next refresh") : join(s.waiting_on, "; ")) + "\n";
    }
    auto body = [&](std::chrono::system_clock::time_point at) {
      explain::StatusInput in;
      in.pools.objects = pool_items;
      in.nodes.objects = node_items;
      in.quotas.objects = quota_items;
      in.now = at;
      std::string out = explain::format_status(in);
      out += "\nPODS WAITING FOR QUOTA\n";
      const auto table = explain::gated_pods_table(pod_items, event_items, at);
      out += table.rows.empty() ? "No pods wait at the quota gate.\n" : explain::render(table);
      return out;
    };
    // The key: the tables without the ages (heartbeats move every 10 s).
    explain::Table node_table = explain::nodes_table(node_items, now);
    if (auto col = std::find(node_table.header.begin(), node_table.header.end(), "HEARTBEAT");
        col != node_table.header.end()) {
      const auto i = col - node_table.header.begin();
      node_table.header.erase(col);
      for (auto& row : node_table.rows) {
        if (static_cast<std::size_t>(i) < row.size()) row.erase(row.begin() + i);
      }
    }
    f.key = head + explain::render(explain::pools_table(pool_items)) + explain::render(node_table) +
            explain::render(explain::quotas_table(quota_items, true)) +
            explain::render(explain::gated_pods_table(pod_items, event_items, std::chrono::system_clock::time_point{}));
    f.text = head + "(" + clock_time(now) + ", refreshed every " +
             std::to_string(std::chrono::duration_cast<std::chrono::seconds>(opts.refresh).count()) + "s)\n\n" +
             body(now);
    return f;
  }

  void show_frame() {
    Frame f = frame();
    if (f.converged != last_converged) {
      if (f.converged) {
        write_file(dir + "/converged", "converged\n");
      } else {
        std::error_code ec;
        fs::remove(dir + "/converged", ec);
      }
    }
    if (tty) {
      std::string out = "\033[H\033[2J" + f.text + "\n" + hints();
      std::fwrite(out.data(), 1, out.size(), stdout);
    } else if (f.key != last_key) {
      std::string out = "\n" + f.text;
      std::fwrite(out.data(), 1, out.size(), stdout);
    }
    std::fflush(stdout);
    last_key = f.key;
    last_settled = f.settled;
    last_converged = f.converged;
  }

  // Which process of the demo has exited, or "".
  std::string exited() {
    if (controller.valid() && !controller.running()) {
      return "gpupool-controller exited (status " + std::to_string(controller.exit_status().value_or(-1)) +
             "); its log: " + dir + "/controller.log";
    }
    for (auto& [node, p] : agents) {
      if (!p.running()) {
        return "the agent of " + node + " exited (status " + std::to_string(p.exit_status().value_or(-1)) +
               "); its log: " + dir + "/agent-" + node + ".log";
      }
    }
    if (cluster.pids().size() != components) {
      return "a control-plane component exited; logs are in " + cluster.log_dir();
    }
    return "";
  }

  int show(const sigset_t& signals) {
    tty = ::isatty(STDOUT_FILENO) == 1;
    if (!tty) {
      std::fputs(("\n" + hints()).c_str(), stdout);
      std::fflush(stdout);
    }
    for (;;) {
      if (std::string gone = exited(); !gone.empty()) {
        spdlog::error("localcluster: {}; stopping", gone);
        return 1;
      }
      show_frame();
      const auto next = std::chrono::steady_clock::now() + opts.refresh;
      for (;;) {
        const auto left = next - std::chrono::steady_clock::now();
        if (left <= 0s) break;
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::min<std::chrono::nanoseconds>(left, 500ms));
        timespec tick{static_cast<time_t>(ns.count() / 1000000000), static_cast<long>(ns.count() % 1000000000)};
        siginfo_t info{};
        const int sig = sigtimedwait(&signals, &info, &tick);
        if (sig == SIGINT || sig == SIGTERM) {
          if (tty) std::fputs("\n", stdout);
          spdlog::info("localcluster: got {}, stopping", sig == SIGINT ? "SIGINT" : "SIGTERM");
          return 0;
        }
      }
    }
  }

  void stop() {
    // All at once, then wait: the controller first in the list so its Lease
    // and webhooks go first, but nobody waits for another.
    std::vector<testenv::Process*> all;
    if (controller.valid()) all.push_back(&controller);
    for (auto& [node, p] : agents) all.push_back(&p);
    for (auto* p : all) {
      if (p->running()) p->signal(SIGTERM);
    }
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    for (auto* p : all) p->wait_until(deadline);
    for (auto* p : all) p->terminate(0ms);  // SIGKILL for stragglers, reaps
    agents.clear();
    controller = testenv::Process();
    if (fs::exists(dir)) {
      std::error_code ec;
      fs::remove(dir + "/converged", ec);
    }
  }
};

Demo::Demo(const testenv::ControlPlane& cluster, DemoOptions options)
    : impl_(std::make_unique<Impl>(cluster, std::move(options))) {}
Demo::~Demo() { stop(); }
void Demo::start(const std::atomic<bool>& cancel) { impl_->start(cancel); }
int Demo::show(const sigset_t& signals) { return impl_->show(signals); }
void Demo::stop() { impl_->stop(); }
std::string Demo::demo_dir() const { return impl_->dir; }
std::vector<std::string> Demo::node_names() const {
  std::vector<std::string> out;
  for (const auto& n : impl_->nodes) out.push_back(n.name);
  return out;
}

}  // namespace gpupool::localcluster
