// The rollout measurement's arithmetic (gpupool-scale-bench, step 8). Pure.
//
// - The limit: a pool's upgradeStrategy.maxUnavailable as a node count, as
//   docs/api.md and pool/rollout.h state it (an integer as given; a
//   percentage of the members rounded down; never below 1). Written here
//   again, not called from lib/pool, so the bench checks the controller
//   against the documented rule rather than against itself.
// - The ideal: with every install taking `install_s` and nothing else taking
//   time, a pool of n nodes and limit k needs ceil(n / k) waves; pools roll
//   in parallel, so the whole rollout's ideal is the longest pool's.
//   overhead = measured / ideal - 1 (0.04: 4 % slower than the ideal).
// - The worst moment: every change of the GPUNodes' spec.disruptionAllowed
//   and the Nodes' spec.unschedulable, replayed in resourceVersion order
//   (etcd revisions are one sequence across kinds): per pool, the most
//   nodes disrupted (permission granted or cordoned) at once.
// - Completion: what a GPUPool's status says once every member runs the
//   target version.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "gpupool/kube/node_conditions.h"

namespace gpupool::bench {

// maxUnavailable ("10%", "3") for `members` nodes; nullopt when unreadable.
std::optional<int> resolve_max_unavailable(const std::string& value, int members);

// ceil(members / limit); 0 for no members. limit >= 1.
int rollout_waves(int members, int limit);

struct PoolRolloutShape {
  std::string pool;
  int members = 0;
  int limit = 1;  // resolved maxUnavailable
};

// max over pools of waves x install_s.
double ideal_rollout_seconds(const std::vector<PoolRolloutShape>& pools, double install_s);

// measured / ideal - 1; nullopt when ideal is not positive.
std::optional<double> rollout_overhead(double measured_s, double ideal_s);

// One observed state of one node: its GPUNode's spec.disruptionAllowed
// (kind granted), its Node's spec.unschedulable (kind cordoned), or whether
// its GPUNode's status reports it up to date (kind reported; see
// reports_up_to_date; not a disruption); `on` is false for a deleted object.
struct DisruptionEvent {
  enum class Kind { granted, cordoned, reported };
  std::uint64_t resource_version = 0;
  Kind kind = Kind::granted;
  std::string node;
  bool on = false;
  double seen_s = 0;  // when the recorder received it (seconds on any one clock)
};

struct WorstMoment {
  int disrupted = 0;                  // nodes of the pool granted or cordoned at once, at most
  std::uint64_t resource_version = 0; // the first revision where that many were
  std::vector<std::string> nodes;     // which, sorted
};

// Replays `events` (any order; sorted by resourceVersion, stably) and
// returns, per pool of `pool_of` (node -> pool), its worst moment. Nodes
// not in `pool_of` are ignored; pools never disrupted are present with 0.
std::map<std::string, WorstMoment> worst_disruption(std::vector<DisruptionEvent> events,
                                                    const std::map<std::string, std::string>& pool_of);

// Sorts `events` by resourceVersion (stably) and sets each one's seen_s to
// the earliest arrival of any event at or after its revision: an upper bound
// on when etcd took it, on one clock for both watches. The raw arrival times
// are not: under load the Node watch ran tens of seconds behind the GPUNode
// watch, and a node's uncordon (a Node event) seemed to come after its
// permission's withdrawal (a GPUNode event), which the controller makes
// only once it sees the uncordon.
void time_by_commit(std::vector<DisruptionEvent>& events);

// Where a rollout's time goes, from the same events (means in seconds over
// the nodes that went through each step; nullopt when none did), timed as
// time_by_commit does: from a node's grant to its cordon (the agent
// taking it up), from the cordon to the uncordon (the install and the
// agent's passes), from the uncordon to the withdrawal of its permission
// (the agent's report and the controller taking it in), split at the
// agent's report of the node up to date (the first after its cordon):
// uncordon to report (the agent) and report to withdrawal (the controller);
// and from a withdrawal in a pool to the next grant there (the controller's
// next turn).
struct PhaseDelays {
  std::optional<double> grant_to_cordon, cordon_to_uncordon, uncordon_to_withdrawal, withdrawal_to_next_grant;
  std::optional<double> uncordon_to_report, report_to_withdrawal;
};
PhaseDelays phase_delays(std::vector<DisruptionEvent> events, const std::map<std::string, std::string>& pool_of);

// Whether a GPUNode (its JSON) reports itself up to date as the controller
// reads it (lib/pool_controller gpunode_state): status.observedGeneration is
// metadata.generation and the conditions DriverReady and PartitionReady are
// True for that generation.
bool reports_up_to_date(const rapidjson::Value& gpunode);

using kube::node_ready;  // include/gpupool/kube/node_conditions.h

// Whether a GPUPool (its JSON) reports its rollout to `target_version`
// complete: status.observedGeneration is metadata.generation,
// status.rollout.targetVersion is the target, every member (nodes.total > 0)
// updated, none pending or failed, and the Progressing condition of this
// generation says Complete.
bool rollout_complete(const rapidjson::Value& pool, const std::string& target_version);

}  // namespace gpupool::bench
