// gpupool-scale-bench's driver rollout (step 8), with the controller
// running and the simulated agent fleet (rollout_agents.h) the bench started
// before the controller's first start (a cluster's agents have reported
// their GPUs and renew their Leases before any figure is taken): waits until
// every pool reports its rollout complete at the version its nodes run (the
// fleet in step with its pools), starts the recorder (rollout_recorder.h),
// then sets every pool's spec.driver to a new version (NVIDIA pools
// kNewNvidiaDriver, AMD pools kNewAmdDriver) with
// upgradeStrategy.maxUnavailable `max_unavailable`, and times it until every
// pool reports the rollout complete, scraping the apiserver's /metrics
// before and after (apiserver_load.h). The recorder is stopped before it
// returns, also on failure (std::runtime_error: the fleet not in step, or
// the rollout not complete, within `timeout`); the fleet is left running.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "apiserver_load.h"
#include "cluster_shape.h"
#include "gpupool/kube/client.h"
#include "rollout_agents.h"
#include "rollout_figures.h"

namespace gpupool::bench {

inline constexpr const char* kNewNvidiaDriver = "580.82.07";
inline constexpr const char* kNewAmdDriver = "6.14.14";

struct RolloutOptions {
  FleetOptions fleet;  // what the fleet given was started with (its install time makes the ideal)
  std::string max_unavailable = "10%";
  std::chrono::seconds timeout{std::chrono::minutes(30)};
  // When set: every event the recorder saw is written there, one per line
  // ("revision kind node on seen_s", kind granted/cordoned/reported, on 1/0),
  // to replay a worst moment by hand (GPUPOOL_BENCH_ROLLOUT_EVENTS).
  std::string events_file;
};

struct PoolRolloutFigures {
  std::string pool;
  int members = 0;
  int limit = 0;          // maxUnavailable as a node count
  int waves = 0;
  int max_disrupted = 0;  // most of its nodes granted or cordoned at once
  std::string worst;      // "at revision N: node, node"
  double complete_s = 0;  // from the first pool patch until its status said complete
};

struct RolloutFigures {
  double fleet_in_step_s = 0;  // from the step's start until every pool was complete at its current version
  double duration_s = 0;       // from the first pool patch until the last pool was complete
  double ideal_s = 0;
  std::optional<double> overhead;
  int max_unavailable = 0;     // the largest per-pool limit
  int max_disrupted = 0;       // the most nodes of one pool disrupted at once
  bool limit_exceeded = false; // some pool had more disrupted at once than its own limit
  std::size_t events = 0;      // changes the recorder saw
  std::size_t not_ready_flips = 0;  // bench Nodes seen Ready, then not (RolloutRecorder::not_ready_flips)
  PhaseDelays phases;          // where the time went (rollout_figures.h)
  FleetCounts fleet;           // the fleet's work during this step
  // The kube-apiserver from the first pool patch until the last pool was
  // complete (scrapes of its /metrics; empty when either failed).
  std::optional<ApiserverLoad> apiserver;
  std::vector<PoolRolloutFigures> pools;
};

// Polls until every pool of `shape` reports its rollout complete at its
// seeded driver version (the fleet in step with its pools); the seconds it
// took. Throws std::runtime_error naming the first pool left when `timeout`
// passes first.
double wait_in_step(kube::Client& client, const ClusterShape& shape, std::chrono::seconds timeout);

RolloutFigures measure_rollout(kube::Client& client, const ClusterShape& shape, AgentFleet& fleet,
                               const RolloutOptions& options);

}  // namespace gpupool::bench
