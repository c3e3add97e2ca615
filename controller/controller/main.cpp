// gpupool-controller: the cluster controller. For now it connects, lists and
// watches nodes and logs them; the reconcilers come with later issues.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "gpupool/common/log.h"
#include "gpupool/common/shutdown.h"
#include "gpupool/kube/client.h"
#include "gpupool/kube/config.h"
#include "node_observer.h"

int main(int argc, char** argv) {
  gpupool::ShutdownSignal shutdown;  // first: threads started later inherit the signal mask

  CLI::App app{"gpupool-controller: reconciles GPUPool, GPUPolicy and TenantQuota objects"};
  std::string kubeconfig, context, log_format = "text", log_level = "info";
  double qps = 20;
  int burst = 30;
  app.add_option("--kubeconfig", kubeconfig, "Path to a kubeconfig (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
  app.add_option("--context", context, "kubeconfig context to use (default: current-context)");
  app.add_option("--log-format", log_format, "Log format")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--log-level", log_level, "Log level")->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
  app.add_option("--kube-api-qps", qps, "Queries per second to the API server")->check(CLI::PositiveNumber);
  app.add_option("--kube-api-burst", burst, "Burst of queries to the API server")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  gpupool::log::init(*gpupool::log::parse_format(log_format), log_level);
  try {
    gpupool::kube::KubeconfigOptions opts;
    if (!kubeconfig.empty()) opts.path = kubeconfig;
    if (!context.empty()) opts.context = context;
    auto config = gpupool::kube::load_default(opts);
    config.qps = qps;
    config.burst = burst;
    config.user_agent = "gpupool-controller/0.1";
    spdlog::info("connecting to {} ({})", config.server, config.source);
    gpupool::kube::Client client(config);
    auto version = gpupool::kube::parse_json(client.request("GET", "/version", "", "", true).body);
    spdlog::info("connected: Kubernetes {}", gpupool::kube::string_at(version, {"gitVersion"}));
    gpupool::controller::observe_nodes(client, shutdown.token());
  } catch (const std::exception& e) {
    if (shutdown.token().stop_requested()) return 0;
    spdlog::error("{}", e.what());
    return 1;
  }
  spdlog::info("shutting down (signal {})", shutdown.signal());
  return 0;
}
