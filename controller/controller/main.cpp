// gpupool-controller: the cluster controller. Runs the GPUPool reconcilers
// (lib/pool_controller), the TenantQuota reconcilers (lib/quota_controller)
// and the admission webhook server (validation, the pod quota gate).
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "gpupool/admission/gate_configuration.h"
#include "gpupool/admission/pod_gate.h"
#include "gpupool/common/log.h"
#include "gpupool/common/malloc_arenas.h"
#include "gpupool/common/shutdown.h"
#include "gpupool/kube/config.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/reachable.h"
#include "gpupool/metrics/build_info.h"
#include "gpupool/runtime/manager.h"
#include "gpupool/gpu/mig_parted.h"
#include "gpupool/runtime/event_recorder.h"
#include "node_inventory.h"
#include "stored_objects.h"
#include "pool_controller_setup.h"
#include "quota_controller_setup.h"
#include "webhook_setup.h"

int main(int argc, char** argv) {
  gpupool::common::limit_malloc_arenas(2);  // before any thread starts
  gpupool::ShutdownSignal shutdown;  // first: threads started later inherit the signal mask

  CLI::App app{"gpupool-controller: reconciles GPUPool, GPUPolicy and TenantQuota objects"};
  std::string kubeconfig, context, log_format = "text", log_level = "info";
  // No client-side limit by default: the API server's priority and fairness
  // protects it (SIG API Machinery's advice, controller-runtime's default
  // since v0.21); a limit of 20 made a start with 2,000 quota statuses to
  // write take minutes.
  double qps = 0;
  int burst = 30;
  int concurrency = 1;
  std::string agent_namespace = "gpupool-system", mig_parted_path;
  std::string device_plugin_configmap = "gpupool-system/nvidia-device-plugin-configs";
  gpupool::runtime::ManagerOptions mo;
  app.add_option("--kubeconfig", kubeconfig, "Path to a kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  app.add_option("--context", context, "kubeconfig context to use (default: current-context)");
  app.add_flag("--leader-elect", mo.leader_elect, "Run controllers only while holding the leader Lease");
  app.add_option("--leader-election-namespace", mo.leader_election_namespace,
                 "Namespace of the leader Lease (default: the context's or pod's namespace)");
  app.add_option("--leader-election-id", mo.leader_election_id, "Name of the leader Lease")->capture_default_str();
  double lease_s = 15, renew_s = 10, retry_s = 2;
  app.add_option("--leader-elect-lease-duration", lease_s, "Seconds a standby waits before taking over an unrenewed lease")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--leader-elect-renew-deadline", renew_s, "Seconds the leader keeps trying to renew before it stops leading")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--leader-elect-retry-period", retry_s, "Seconds between attempts to acquire or renew")
      ->capture_default_str()->check(CLI::PositiveNumber);
  double cache_sync_s = std::chrono::duration<double>(mo.cache_sync_timeout).count();
  app.add_option("--cache-sync-timeout", cache_sync_s, "Seconds the informers may take to list everything at start before the controller exits")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--metrics-bind-address", mo.metrics_bind_address, "Address of /metrics; 0 disables")->capture_default_str();
  app.add_option("--health-probe-bind-address", mo.health_probe_bind_address,
                 "Address of /healthz and /readyz; 0 disables")->capture_default_str();
  app.add_option("--concurrency", concurrency, "Reconciles run at once per controller (pool passes and usage writers: at least 4)")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--agent-namespace", agent_namespace, "Namespace of the node agents' Leases")->capture_default_str();
  app.add_option("--device-plugin-configmap", device_plugin_configmap,
                 "NAMESPACE/NAME of the NVIDIA device plugin's ConfigMap, kept with one config per MIG strategy and "
                 "sharing setting in use")->capture_default_str();
  app.add_option("--mig-parted-config", mig_parted_path,
                 "A mig-parted config file whose configs pools may name as spec.partitioning.nvidia.layout");
  gpupool::pool_controller::MonitoringReconcilerOptions monitoring;
  std::vector<std::string> monitoring_labels;
  app.add_option("--monitoring-label", monitoring_labels,
                 "KEY=VALUE added to the labels of every pool's monitoring objects (ServiceMonitor, PrometheusRule, "
                 "dashboard ConfigMap), what a Prometheus' serviceMonitorSelector and ruleSelector or Grafana's sidecar "
                 "select on, e.g. release=kube-prometheus-stack; repeatable")
      ->each([&monitoring](const std::string& kv) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0) throw CLI::ValidationError("--monitoring-label", "want KEY=VALUE, got " + kv);
        monitoring.objects.extra_labels[kv.substr(0, eq)] = kv.substr(eq + 1);
      });
  app.add_option("--agent-metrics-port", monitoring.objects.agent_metrics_port,
                 "Port of the agents' /metrics (their --metrics-bind-address), the target of the pools' Services")
      ->capture_default_str()->check(CLI::Range(1, 65535));
  gpupool::controller::WebhookOptions wo;
  app.add_option("--webhook-bind-address", wo.bind_address,
                 "host:port of the admission webhook server (HTTPS); empty or 0 disables it")->capture_default_str();
  app.add_option("--webhook-url", wo.url,
                 "https://HOST:PORT the API server reaches the webhook at, outside a cluster; default: the Service");
  app.add_option("--webhook-service", wo.service, "NAMESPACE/NAME of the webhook's Service (port 443)")->capture_default_str();
  app.add_option("--webhook-secret", wo.secret, "NAMESPACE/NAME of the Secret holding the webhook's CA and certificate")
      ->capture_default_str();
  app.add_option_function<std::string>("--webhook-cert-source", [&wo](const std::string& s) {
    wo.cert_source = s == "secret" ? gpupool::controller::CertSource::secret : gpupool::controller::CertSource::self;
  }, "self: the controller makes and rotates the certificates in --webhook-secret; secret: it only reads them there "
     "(tls.crt, tls.key, ca.crt: cert-manager's Certificate)")->check(CLI::IsMember({"self", "secret"}))->default_str("self");
  auto duration_flag = [&app](const std::string& flag, auto& value, const char* text, const std::string& help) {
    app.add_option_function<std::string>(flag, [&value, flag](const std::string& s) {
      try { value = gpupool::controller::parse_flag_duration(s); } catch (const std::exception& e) { throw CLI::ValidationError(flag, e.what()); }
    }, help + " (Go duration)")->default_str(text);
  };
  duration_flag("--monitoring-retry-interval", monitoring.missing_requeue, "1m",
                "How soon a pool whose monitoring is incomplete (no Prometheus Operator CRDs, an object refused) is tried "
                "again");
  duration_flag("--webhook-cert-validity", wo.certificates.serving_validity, "8760h", "Validity of the webhook's serving certificate, re-issued with a third left");
  duration_flag("--webhook-ca-validity", wo.certificates.ca_validity, "43800h", "Validity of the webhook's CA, replaced with a third left");
  duration_flag("--webhook-cert-check-interval", wo.check_interval, "1m", "How often the webhook's Secret is read again and rotated when due");
  app.add_option("--kube-api-qps", qps, "Queries per second to the API server (client-side limit); 0: none, the API server's priority and fairness applies")->capture_default_str()->check(CLI::NonNegativeNumber);
  app.add_option("--kube-api-burst", burst, "Burst of queries to the API server, with --kube-api-qps")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--log-format", log_format, "Log format: text or json")->capture_default_str()->check(CLI::IsMember({"text", "json"}));
  app.add_option("--log-level", log_level, "Log level")->capture_default_str()
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
  CLI11_PARSE(app, argc, argv);

  gpupool::log::init(*gpupool::log::parse_format(log_format), log_level);
  gpupool::metrics::register_build_info(gpupool::metrics::default_registry());
  auto ms = [](double seconds) { return std::chrono::milliseconds(static_cast<long long>(seconds * 1000)); };
  mo.lease_duration = ms(lease_s);
  mo.renew_deadline = ms(renew_s);
  mo.retry_period = ms(retry_s);
  mo.cache_sync_timeout = ms(cache_sync_s);
  int code = 0;
  try {
    gpupool::kube::KubeconfigOptions opts;
    if (!kubeconfig.empty()) opts.path = kubeconfig;
    if (!context.empty()) opts.context = context;
    auto config = gpupool::kube::load_default(opts);
    config.qps = qps;
    config.burst = burst;
    config.user_agent = "gpupool-controller/0.1";
    spdlog::info("connecting to {} ({})", config.server, config.source);

    gpupool::runtime::Manager manager(config, mo);
    // An API server away (restarting, not up yet) is waited for, not a reason to exit.
    const auto version_body = gpupool::kube::get_when_reachable(manager.client(), "/version", shutdown.token());
    if (!version_body) {
      spdlog::info("shutting down (signal {})", shutdown.signal());
      return 0;
    }
    spdlog::info("connected: Kubernetes {}", gpupool::kube::string_at(gpupool::kube::parse_json(*version_body), {"gitVersion"}));
    // Without our CRDs the informers would wait for a sync that never comes: say so and stop.
    try {
      if (!gpupool::kube::get_when_reachable(manager.client(), "/apis/gpupool.io/v1alpha1", shutdown.token())) return 0;
    } catch (const gpupool::kube::ApiError& e) {
      if (!e.is_not_found()) throw;
      spdlog::error("the API server does not serve gpupool.io/v1alpha1: install the CRDs first "
                    "(kubectl apply --server-side -f crds/, or the Helm chart)");
      return 1;
    }

    std::optional<gpupool::gpu::MigPartedConfig> mig_parted;
    if (!mig_parted_path.empty()) {
      mig_parted = gpupool::gpu::load_mig_parted(mig_parted_path);
      for (const auto& [name, e] : mig_parted->unreadable) {
        spdlog::warn("--mig-parted-config: config {} cannot be used: {}", name, e.message);
      }
    }
    gpupool::runtime::EventRecorderOptions eo;
    eo.reporting_controller = "gpupool.io/controller";
    gpupool::runtime::EventRecorder events(manager.client(), eo);
    // The node inventory log (one line per node change), kept as the runtime's
    // smallest end-to-end check.
    auto nodes = manager.informers().get<gpupool::kube::Object>({gpupool::kube::core::nodes(), "", "", ""}, {}, gpupool::controller::stored_nodes());
    gpupool::controller::NodeInventoryReconciler reconciler(nodes);
    gpupool::runtime::ControllerOptions co;
    co.name = "node-inventory";
    gpupool::runtime::Controller inventory(std::move(co), reconciler);
    inventory.watches<gpupool::kube::Object>(*nodes, {}, &gpupool::controller::NodeInventoryReconciler::description_changed);
    manager.add(inventory);
    gpupool::controller::PoolController pools(manager, agent_namespace, concurrency, mig_parted ? &*mig_parted : nullptr,
                                              &events, device_plugin_configmap, monitoring);
    std::unique_ptr<gpupool::controller::WebhookServer> webhook;
    if (!wo.bind_address.empty() && wo.bind_address != "0") {
      wo.catalog = &gpupool::gpu::Catalog::builtin();
      wo.mig_parted = mig_parted ? &*mig_parted : nullptr;
      wo.handlers[gpupool::admission::kGatePath] = [](const gpupool::webhook::HttpRequest& r) {
        std::string error;
        auto request = gpupool::admission::parse_admission_review(r.body, error);
        if (!request) return gpupool::webhook::HttpResponse{400, "text/plain", error};
        return gpupool::webhook::HttpResponse{200, "application/json",
                                              gpupool::admission::admission_review_response(gpupool::admission::gate_pod(*request))};
      };
      wo.is_leader = [&manager] { return manager.is_leader(); };
      webhook = std::make_unique<gpupool::controller::WebhookServer>(manager.client(), wo);
    }
    gpupool::controller::QuotaController quotas(manager, concurrency, &events, webhook.get());
    code = manager.run(shutdown.token());
    // The webhook server's rotation thread calls into the quota controller (CA changes): stop it first.
    webhook.reset();
    events.stop();
  } catch (const std::exception& e) {
    spdlog::error("{}", e.what());
    return 1;
  }
  spdlog::info("shutting down (signal {})", shutdown.signal());
  return code;
}
