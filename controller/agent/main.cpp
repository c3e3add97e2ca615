// gpupool-agent: the node agent, one per GPU node and the only privileged
// part of the system. It reports the node's GPUs in its GPUNode status and
// node labels, and makes them match the GPUNode spec (lib/node/node_agent.h).
// It also serves the node's GPU metrics, labelled with the pods holding each
// device and their tenant: the agent reads namespaces (get) to find their
// tenant (node/namespace_tenants.h), so its RBAC needs that.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gpupool/backend/select.h"
#include "gpupool/common/log.h"
#include "gpupool/common/shutdown.h"
#include "gpupool/common/subprocess.h"
#include "gpupool/kube/config.h"
#include "gpupool/metrics/build_info.h"
#include "gpupool/node/gpu_metrics_collector.h"
#include "gpupool/node/gpu_report.h"
#include "gpupool/node/lease_heartbeat.h"
#include "gpupool/node/namespace_tenants.h"
#include "gpupool/node/node_agent.h"
#include "gpupool/node/telemetry_poller.h"
#include "gpupool/podresources/lister.h"
#include "gpupool/runtime/manager.h"

namespace {

std::chrono::milliseconds seconds(double s) { return std::chrono::milliseconds(static_cast<long long>(s * 1000)); }

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  std::string word;
  for (char c : s) {
    if (c == ' ' || c == '\t') {
      if (!word.empty()) out.push_back(std::move(word));
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) out.push_back(std::move(word));
  return out;
}

// --print-gpus: the report of gpu_report.h on stdout, no cluster touched.
int print_gpus(gpupool::backend::BackendSelection sel, const std::string& simulated_gpus, std::string node_name) {
  namespace backend = gpupool::backend;
  if (node_name.empty()) {
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) node_name = host;
  }
  try {
    sel.catalog = &gpupool::gpu::Catalog::builtin();
    sel.simulated.node_name = node_name;
    if (!simulated_gpus.empty()) sel.simulated.gpus = backend::parse_simulated_gpus(simulated_gpus, *sel.catalog);
    backend::SelectedBackend selected = backend::select_backend(sel);
    gpupool::node::GpuReportOptions options;
    options.node_name = node_name;
    options.catalog = sel.catalog;
    const gpupool::node::GpuReport report = gpupool::node::gpu_report(*selected.backend, options);
    const std::string text = "# backend: " + selected.why + "\n" + report.text;
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    if (report.failed_calls > 0) spdlog::error("{} backend call(s) failed; see the report", report.failed_calls);
    return report.failed_calls == 0 ? 0 : 1;
  } catch (const backend::BackendError& e) {
    spdlog::error("GPU backend: {}: {}", e.code(), e.what());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  gpupool::ShutdownSignal shutdown;  // first: threads started later inherit the signal mask
  namespace backend = gpupool::backend;
  namespace node = gpupool::node;
  namespace runtime = gpupool::runtime;
  namespace kube = gpupool::kube;

  CLI::App app{"gpupool-agent: reports a node's GPUs and makes them match its GPUNode spec"};
  std::string kubeconfig, context, node_name, ns, log_format = "text", log_level = "info";
  std::string simulated_gpus;
  backend::BackendSelection sel;
  runtime::ManagerOptions mo;
  mo.metrics_bind_address = ":8080";
  mo.health_probe_bind_address = ":8081";
  double qps = 5, lease_s = 10, heartbeat_s = 300, inventory_s = 30, drain_poll_s = 2, telemetry_s = 10;
  int burst = 10;
  bool simulated_device_plugin = true;
  std::string host_command_prefix = "nsenter --target 1 --mount --uts --ipc --net --pid --";
  node::NodeAgentOptions ao;
  long long device_plugin_restart_s = ao.device_plugin_restart_after.count();
  app.add_option("--kubeconfig", kubeconfig, "Path to a kubeconfig (default: in-cluster, then $KUBECONFIG, ~/.kube/config)");
  app.add_option("--context", context, "kubeconfig context to use");
  app.add_option("--node-name", node_name, "This node's name (default: $NODE_NAME)");
  app.add_option("--namespace", ns, "Namespace of the agent's Lease (default: the pod's namespace in a cluster, else gpupool-system)");
  app.add_option("--backend", sel.kind, "GPU backend")->capture_default_str()
      ->check(CLI::IsMember({"nvml", "nvidia-smi", "amd", "simulated", "auto"}));
  app.add_option("--simulated-gpus", simulated_gpus, "Simulated GPUs: MODEL=COUNT[,MODEL=COUNT], MODEL a catalog id (a100-sxm4-80gb=8)");
  app.add_option("--simulated-config", sel.simulated.config_path, "Simulated world YAML (GPUs, install behaviour, injected faults)");
  app.add_option("--simulated-state", sel.simulated.state_path,
                 "Where the simulated GPUs keep their state across restarts (default: /tmp/gpupool-agent-<node>.json)");
  app.add_option("--simulated-driver-version", sel.simulated.driver_version, "Driver the simulated GPUs start with")->capture_default_str();
  app.add_option("--nvml-library", sel.nvml_library, "NVML library to dlopen")->capture_default_str();
  app.add_option("--nvidia-smi", sel.nvidia_smi, "nvidia-smi executable (default: $PATH)");
  app.add_option("--amd-smi", sel.amd_smi, "amd-smi executable (default: $PATH)");
  app.add_option("--rocm-smi", sel.rocm_smi, "rocm-smi executable, used where amd-smi is absent (default: $PATH)");
  app.add_option("--simulated-device-plugin", simulated_device_plugin,
                 "With the simulated backend, write the extended resources into Node status as the device plugin "
                 "would; false leaves that to a device plugin pod")->capture_default_str();
  app.add_option("--host-command-prefix", host_command_prefix,
                 "Command that enters the host's namespaces before /bin/sh runs a package or runfile installer "
                 "command; \"\" runs it in the agent's own")->capture_default_str();
  app.add_option("--device-plugin-selector", ao.device_plugin_selectors,
                 "Labels (k=v[,k=v]) of the device plugin pods the agent may restart on its node; repeatable")
      ->capture_default_str();
  app.add_option("--device-plugin-restart-after", device_plugin_restart_s,
                 "Seconds a device plugin may take to re-advertise a changed node before its pod here is restarted")
      ->capture_default_str()->check(CLI::Range(1, 86400));
  app.add_option("--metrics-bind-address", mo.metrics_bind_address, "Address of /metrics; 0 disables")->capture_default_str();
  app.add_option("--health-probe-bind-address", mo.health_probe_bind_address, "Address of /healthz and /readyz; 0 disables")
      ->capture_default_str();
  app.add_option("--lease-renew-interval", lease_s, "Seconds between renewals of the agent's Lease")->capture_default_str()
      ->check(CLI::Range(0.1, 3600.0));
  app.add_option("--status-heartbeat", heartbeat_s, "Longest gap in seconds between GPUNode status writes")->capture_default_str()
      ->check(CLI::Range(1.0, 86400.0));
  app.add_option("--inventory-interval", inventory_s, "Seconds between reads of the GPUs when nothing else happens")
      ->capture_default_str()->check(CLI::Range(0.1, 3600.0));
  app.add_option("--telemetry-interval", telemetry_s,
                 "Seconds between reads of the GPUs' metrics (temperature, ECC, ...) for GPU health; XID events are "
                 "drained every second, or this often when shorter")
      ->capture_default_str()->check(CLI::Range(0.1, 3600.0));
  std::string pod_resources_socket(gpupool::podresources::kDefaultKubeletSocket), dcgm_naming = "classic";
  app.add_option("--pod-resources-socket", pod_resources_socket,
                 "The kubelet's pod-resources socket: which pod holds each GPU, for the GPU metrics' pod labels "
                 "(mount its directory, not the file, so kubelet restarts are survived); empty: no pod labels")
      ->capture_default_str();
  app.add_option("--dcgm-naming", dcgm_naming,
                 "Names of the dcgm-exporter-compatible GPU metrics: classic (before dcgm-exporter 4.8.3, what most "
                 "dashboards query) or dcgm-4.9 (DCGM 4.7 field names, base units, label hostname)")
      ->capture_default_str()->check(CLI::IsMember({"classic", "dcgm-4.9"}));
  app.add_option("--drain-poll-interval", drain_poll_s, "Seconds between checks of a drain in progress")->capture_default_str()
      ->check(CLI::Range(0.05, 600.0));
  app.add_option("--kube-api-qps", qps, "Queries per second to the API server")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--kube-api-burst", burst, "Burst of queries to the API server")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--log-format", log_format, "Log format: text or json")->capture_default_str()->check(CLI::IsMember({"text", "json"}));
  app.add_option("--log-level", log_level, "Log level")->capture_default_str()
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
  bool print_gpus_only = false;
  app.add_flag("--print-gpus", print_gpus_only,
               "Print what the agent reads of this node's GPUs (status, labels, resources, processes, metrics) "
               "and exit; read-only, needs no cluster");
  CLI11_PARSE(app, argc, argv);

  gpupool::log::init(*gpupool::log::parse_format(log_format), log_level);
  if (print_gpus_only) {
    if (node_name.empty() && std::getenv("NODE_NAME") != nullptr) node_name = std::getenv("NODE_NAME");
    return print_gpus(sel, simulated_gpus, node_name);
  }
  gpupool::metrics::register_build_info(gpupool::metrics::default_registry());
  if (node_name.empty()) {
    const char* env = std::getenv("NODE_NAME");
    node_name = env ? env : "";
  }
  if (node_name.empty()) {
    spdlog::error("no node name: pass --node-name or set $NODE_NAME (the downward API's spec.nodeName)");
    return 2;
  }
  try {
    kube::RestConfig config;
    if (kubeconfig.empty() && std::getenv("KUBERNETES_SERVICE_HOST") != nullptr) {
      config = kube::load_in_cluster();
    } else {
      kube::KubeconfigOptions opts;
      if (!kubeconfig.empty()) opts.path = kubeconfig;
      if (!context.empty()) opts.context = context;
      config = kube::load_default(opts);
    }
    if (ns.empty()) ns = config.source == "in-cluster" ? config.default_namespace : "gpupool-system";
    config.qps = qps;
    config.burst = burst;
    config.user_agent = "gpupool-agent/0.1 (" + node_name + ")";

    sel.catalog = &gpupool::gpu::Catalog::builtin();
    sel.simulated.node_name = node_name;
    if (!simulated_gpus.empty()) sel.simulated.gpus = backend::parse_simulated_gpus(simulated_gpus, *sel.catalog);
    if (sel.simulated.state_path.empty()) sel.simulated.state_path = "/tmp/gpupool-agent-" + node_name + ".json";
    backend::SelectedBackend selected = backend::select_backend(sel);
    spdlog::info("node {}: GPU backend {}", node_name, selected.why);

    runtime::Manager manager(config, mo);
    kube::RestConfig eviction_config = config;
    eviction_config.max_retries = 0;  // a PodDisruptionBudget's 429 is reported, then retried by the agent
    kube::Client eviction_client(eviction_config);

    runtime::InformerOptions own;
    own.selectors.field_selector = "metadata.name=" + node_name;
    runtime::InformerOptions on_node;
    on_node.selectors.field_selector = "spec.nodeName=" + node_name;
    auto gpunodes = manager.informers().get<kube::Object>({{"gpupool.io", "v1alpha1", "gpunodes"}, "", "", ""}, own);
    auto nodes = manager.informers().get<kube::Object>({kube::core::nodes(), "", "", ""}, own);
    auto pods = manager.informers().get<kube::Object>({kube::core::pods(), "", "", ""}, on_node);

    std::unique_ptr<node::DriverInstaller> installer;
    if (selected.simulated) {
      installer = node::make_simulated_installer(*selected.simulated);
    } else {
      node::ContainerInstallerOptions cio;
      cio.node_name = node_name;
      cio.namespace_ = ns;
      node::HostCommandOptions hco;
      hco.prefix = split_words(host_command_prefix);
      if (!hco.prefix.empty() && hco.prefix.front().front() != '/') {
        const char* path = std::getenv("PATH");
        const std::string found = gpupool::common::find_in_path(hco.prefix.front(), path ? path : "/usr/bin:/bin");
        if (found.empty()) {
          spdlog::warn("--host-command-prefix: {} not found in $PATH; package and runfile installs will fail",
                       hco.prefix.front());
        } else {
          hco.prefix.front() = found;
        }
      }
      installer = node::make_installer_by_kind(node::make_container_installer(manager.client(), cio),
                                               node::make_host_command_installer(hco));
    }
    ao.node_name = node_name;
    ao.inventory_interval = seconds(inventory_s);
    ao.status_heartbeat = seconds(heartbeat_s);
    ao.drain_poll = seconds(drain_poll_s);
    ao.advertise_resources = selected.simulated != nullptr && simulated_device_plugin;  // it plays the device plugin
    ao.device_plugin_restart_after = std::chrono::seconds(device_plugin_restart_s);
    // One caller at a time (backend.h): the agent's passes and the telemetry poller.
    node::SerializedBackend gpus(*selected.backend);
    node::TelemetryPollerOptions to;
    to.interval = seconds(telemetry_s);
    to.xid_interval = std::min(to.interval, std::chrono::milliseconds(1000));
    node::TelemetryPoller telemetry(gpus, to);
    ao.telemetry = &telemetry;
    if (auto* sim = selected.simulated) {
      ao.on_gpu_pods = [sim](const std::vector<node::PodFacts>& facts) {
        std::vector<backend::SimulatedPod> pods_now;
        for (const auto& f : facts) pods_now.push_back({f.uid, f.ns + "/" + f.name});
        sim->set_gpu_pods(std::move(pods_now));
      };
    }
    node::NodeAgent agent(manager.client(), eviction_client, gpus, *installer, gpunodes->store(),
                          nodes->store(), pods->store(), *sel.catalog, ao);
    runtime::ControllerOptions co;
    co.name = "gpunode-agent";
    co.concurrency = 1;
    runtime::Controller controller(std::move(co), agent);
    auto to_node = [node_name](const kube::Object&) { return std::vector<runtime::Request>{{"", node_name}}; };
    controller.watches<kube::Object>(*gpunodes, to_node);
    controller.watches<kube::Object>(*nodes, to_node, [](const kube::Object& a, const kube::Object& b) {
      // kubelet's status heartbeats change nothing the agent reads: only
      // labels, annotations, spec (cordon) and the advertised resources count.
      auto part = [](const kube::Object& o, const char* a1, const char* a2) {
        const auto& d = o.doc;
        if (!d.HasMember(a1) || !d[a1].HasMember(a2)) return std::string();
        return kube::to_json(d[a1][a2]);
      };
      for (auto [x, y] : {std::pair{"metadata", "labels"}, {"metadata", "annotations"}, {"status", "capacity"}}) {
        if (part(a, x, y) != part(b, x, y)) return true;
      }
      return !a.doc.HasMember("spec") || !b.doc.HasMember("spec") || kube::to_json(a.doc["spec"]) != kube::to_json(b.doc["spec"]);
    });
    controller.watches<kube::Object>(*pods, to_node);
    manager.add(controller);
    controller.enqueue({"", node_name});
    // A snapshot that changes a GPU's health wakes the agent to write it.
    telemetry.subscribe([&agent, &controller, node_name](const node::TelemetrySnapshot& s) {
      if (agent.observe_telemetry(s)) controller.enqueue({"", node_name});
    });
    // The GPU metrics: built once per snapshot, served from /metrics (README, "GPU metrics").
    node::GpuMetricsSources ms;
    ms.inventory = [&gpus] { return gpus.last_inventory(); };
    ms.health = [&gpunodes, node_name] {
      auto obj = gpunodes->store().get(node_name);
      return obj ? node::gpu_health_of(obj->doc) : std::map<int, gpupool::api::GPUHealth>{};
    };
    if (!pod_resources_socket.empty()) ms.lister = gpupool::podresources::make_grpc_lister(pod_resources_socket);
    // Each holder's tenant: its namespace's gpupool.io/tenant label, else its
    // name (quota::tenant_of), read with `get` on namespaces (the agent's RBAC
    // needs it) and cached (node/namespace_tenants.h). Its own client: no
    // retries and a short timeout, as it runs on the telemetry thread.
    kube::RestConfig namespace_config = config;
    namespace_config.max_retries = 0;
    namespace_config.timeout = std::chrono::seconds(5);
    auto namespace_tenants = std::make_shared<node::NamespaceTenants>(
        node::namespace_label_fetcher(std::make_shared<kube::Client>(namespace_config)));
    ms.tenants = [namespace_tenants](const std::set<std::string>& namespaces) {
      return namespace_tenants->tenants(namespaces);
    };
    gpupool::exporter::ExporterOptions eo;
    eo.dcgm = dcgm_naming == "dcgm-4.9" ? gpupool::exporter::DcgmNaming::dcgm_4_9 : gpupool::exporter::DcgmNaming::classic;
    // Shared with the process-wide registry, which outlives this scope.
    auto gpu_metrics = std::make_shared<node::GpuMetricsCollector>(node_name, eo, std::move(ms));
    telemetry.subscribe([gpu_metrics](const node::TelemetrySnapshot& s) { gpu_metrics->on_snapshot(s); });
    gpupool::metrics::default_registry().add_collector([gpu_metrics] { return gpu_metrics->families(); });
    std::jthread telemetry_thread([&telemetry](std::stop_token stop) { telemetry.run(stop); });

    node::LeaseHeartbeatOptions lo;
    lo.namespace_ = ns;
    lo.node_name = node_name;
    lo.interval = seconds(lease_s);
    node::LeaseHeartbeat heartbeat(manager.client(), lo);
    std::jthread lease_thread([&heartbeat](std::stop_token stop) { heartbeat.run(stop); });

    const int code = manager.run(shutdown.token());
    telemetry_thread.request_stop();
    telemetry_thread.join();
    lease_thread.request_stop();
    spdlog::info("shutting down (signal {})", shutdown.signal());
    return code;
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
}
