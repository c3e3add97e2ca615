// Manager: what a controller process runs. It owns the client, the shared
// informers and the controllers, serves /metrics, /healthz and /readyz, and,
// with leader election, runs the controllers only while it holds the Lease.
//
// - Informers run on every replica, leader or not, so a standby that takes
//   over has warm caches.
// - Controllers start once the informers have synced, and only while leading.
//   Losing the lease stops them at once; run() then returns 1 so the process
//   exits and restarts as a fresh candidate (controller-runtime does the same).
// - On stop (SIGTERM): controllers take no new keys and get `shutdown_grace`
//   for reconciles under way, then the lease is released so a standby takes
//   over without waiting for it to expire; run() returns 0.
// - /healthz answers once the process serves; /readyz once the informers have
//   synced.
#pragma once

#include <chrono>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "gpupool/kube/client.h"
#include "gpupool/runtime/controller.h"
#include "gpupool/runtime/informer.h"
#include "gpupool/runtime/leader_election.h"

namespace gpupool::runtime {

struct ManagerOptions {
  bool leader_elect = false;
  std::string leader_election_namespace;  // empty: the kubeconfig context's (or pod's) namespace
  std::string leader_election_id = "gpupool-controller.gpupool.io";
  std::string leader_election_identity;  // empty: hostname_uuid
  std::chrono::milliseconds lease_duration{std::chrono::seconds(15)};
  std::chrono::milliseconds renew_deadline{std::chrono::seconds(10)};
  std::chrono::milliseconds retry_period{std::chrono::seconds(2)};
  std::string metrics_bind_address = ":8080";       // "0" disables
  std::string health_probe_bind_address = ":8081";  // "0" disables
  // How long the informers may take to list everything before run() gives
  // up (exits 1). Not controller-runtime's 2 minutes: at 5,000 nodes and
  // 150,000 pods the paginated lists alone took 3 minutes on 2 cores.
  std::chrono::milliseconds cache_sync_timeout{std::chrono::minutes(10)};
};

class Manager {
 public:
  Manager(kube::RestConfig config, ManagerOptions options);
  ~Manager();
  Manager(const Manager&) = delete;
  Manager& operator=(const Manager&) = delete;

  kube::Client& client() { return client_; }
  InformerFactory& informers() { return informers_; }
  // Controllers are run while leading; register them before run().
  void add(Controller& controller) { controllers_.push_back(&controller); }

  // Runs until `stop` fires (returns 0) or leadership is lost or the caches
  // never sync (returns 1). Before it returns, the controllers and the
  // informers have stopped: no handler runs after it.
  int run(std::stop_token stop);

  // Whether this replica leads now: always without leader election; with it,
  // from acquiring the Lease until leadership ends (false before run()).
  // Thread-safe.
  bool is_leader() const;

  // Ports actually bound (for tests that bind port 0); 0 when disabled.
  int metrics_port() const;
  int health_probe_port() const;

 private:
  // Runs every controller until `leading` fires; false if the caches did not sync.
  bool run_controllers(std::stop_token leading);

  kube::RestConfig config_;
  ManagerOptions options_;
  kube::Client client_;
  InformerFactory informers_;
  std::vector<Controller*> controllers_;
  struct Endpoints;
  std::unique_ptr<Endpoints> endpoints_;
};

}  // namespace gpupool::runtime
