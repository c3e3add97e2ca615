#include "gpupool/runtime/manager.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <thread>

#include "gpupool/metrics/controller_metrics.h"
#include "gpupool/metrics/health_checks.h"
#include "gpupool/metrics/http_endpoint.h"
#include "gpupool/metrics/registry.h"

namespace gpupool::runtime {

struct Manager::Endpoints {
  metrics::HealthChecks healthz{"healthz"};
  metrics::HealthChecks readyz{"readyz"};
  std::unique_ptr<metrics::HttpEndpoint> metrics;
  std::unique_ptr<metrics::HttpEndpoint> probes;  // null when it shares the metrics endpoint
  std::atomic<bool> synced{false};
  std::atomic<bool> leading{false};
};

Manager::Manager(kube::RestConfig config, ManagerOptions options)
    : config_(std::move(config)),
      options_(std::move(options)),
      client_(config_),
      informers_(client_),
      endpoints_(std::make_unique<Endpoints>()) {
  auto& e = *endpoints_;
  e.healthz.add("ping", [] { return std::optional<std::string>(); });
  e.readyz.add("informers-synced", [&e]() -> std::optional<std::string> {
    if (e.synced.load()) return std::nullopt;
    return std::string("the informers have not listed yet");
  });
  e.metrics = std::make_unique<metrics::HttpEndpoint>(options_.metrics_bind_address);
  e.metrics->serve_metrics(metrics::default_registry());
  metrics::HttpEndpoint* probes = e.metrics.get();
  if (options_.health_probe_bind_address != options_.metrics_bind_address) {
    e.probes = std::make_unique<metrics::HttpEndpoint>(options_.health_probe_bind_address);
    probes = e.probes.get();
  }
  probes->serve_checks("/healthz", e.healthz);
  probes->serve_checks("/readyz", e.readyz);
}

Manager::~Manager() {
  informers_.stop();
  if (endpoints_->probes) endpoints_->probes->stop();
  endpoints_->metrics->stop();
}

bool Manager::is_leader() const { return !options_.leader_elect || endpoints_->leading.load(); }

int Manager::metrics_port() const { return endpoints_->metrics->enabled() ? endpoints_->metrics->port() : 0; }

int Manager::health_probe_port() const {
  const auto* probes = endpoints_->probes ? endpoints_->probes.get() : endpoints_->metrics.get();
  return probes->enabled() ? probes->port() : 0;
}

bool Manager::run_controllers(std::stop_token leading) {
  if (!informers_.wait_for_sync(options_.cache_sync_timeout, leading)) {
    if (leading.stop_requested()) return true;
    spdlog::error("manager: the informers did not sync within {} s", options_.cache_sync_timeout.count() / 1000);
    return false;
  }
  std::vector<std::jthread> running;
  for (Controller* c : controllers_) {
    running.emplace_back([c, leading] { c->run(leading); });
  }
  running.clear();  // joins: each controller returns once `leading` fires and its reconciles end
  return true;
}

int Manager::run(std::stop_token stop) {
  auto& e = *endpoints_;
  e.metrics->start();
  if (e.probes) e.probes->start();
  if (e.metrics->enabled()) spdlog::info("manager: serving metrics on port {}", e.metrics->port());
  informers_.start();
  // Stopped before run() returns, whichever way: their handlers reach into
  // the controllers' reconcilers, which the caller destroys next (an
  // informer still delivering then was a use-after-free at every shutdown).
  struct StopInformers {
    InformerFactory& informers;
    ~StopInformers() { informers.stop(); }
  } stop_informers{informers_};
  std::jthread sync_watch([this, &e](std::stop_token own) {
    if (informers_.wait_for_sync(options_.cache_sync_timeout, own)) e.synced = true;
  });

  if (!options_.leader_elect) {
    return run_controllers(stop) ? 0 : 1;
  }

  auto& status = metrics::controller_metrics().leader_election_master_status.with({options_.leader_election_id});
  LeaderElectionConfig le;
  le.lease_namespace = options_.leader_election_namespace.empty() ? config_.default_namespace
                                                                  : options_.leader_election_namespace;
  le.lease_name = options_.leader_election_id;
  le.identity = options_.leader_election_identity;
  le.lease_duration = options_.lease_duration;
  le.renew_deadline = options_.renew_deadline;
  le.retry_period = options_.retry_period;
  std::atomic<bool> sync_failed{false};
  LeaderCallbacks callbacks;
  callbacks.on_started_leading = [&](std::stop_token leading) {
    spdlog::info("manager: became leader (lease {}/{})", le.lease_namespace, le.lease_name);
    if (!run_controllers(leading)) sync_failed = true;
  };
  callbacks.on_stopped_leading = [] { spdlog::info("manager: stopped leading"); };
  callbacks.on_new_leader = [](const std::string& id) { spdlog::info("manager: the leader is {}", id); };
  callbacks.on_leader_status = [&status, &e](bool leading) {
    e.leading = leading;
    status.set(leading ? 1 : 0);
  };
  LeaderElector elector(config_, le, callbacks);
  spdlog::info("manager: waiting to lead (lease {}/{}, identity {})", le.lease_namespace, le.lease_name,
               elector.identity());
  ElectionOutcome outcome = elector.run(stop);
  if (outcome == ElectionOutcome::Lost && !stop.stop_requested()) {
    spdlog::error("manager: leadership lost; exiting so that a fresh candidate takes part in the next election");
    return 1;
  }
  return sync_failed ? 1 : 0;
}

}  // namespace gpupool::runtime
