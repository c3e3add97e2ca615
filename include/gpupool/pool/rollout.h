// Rolling changes across a pool: which member nodes may be disrupted now.
// Pure and deterministic; the pool reconciler reads GPUNodes, Nodes and
// Leases into RolloutNodes, calls decide_rollout, and writes
// spec.disruptionAllowed as decided (withdrawals before grants).
//
// Rules:
// - A node is unavailable while it is not Ready, its agent is not
//   heartbeating, it is cordoned (by anyone: an administrator, or our agent
//   draining it or keeping a failed node cordoned), its agent says it holds
//   it cordoned (agent_cordoned), or it holds permission and has not
//   finished. At most `max_unavailable` members are unavailable
//   because of us: a grant is made only while the count of unavailable
//   members is below it (a node that is unavailable already can be granted
//   without adding to the count, so an administrator's cordon or a dead node
//   never stalls a rollout forever). Besides, at most `max_unavailable`
//   members hold permission (failed ones aside: their agents do not act on
//   it) or are cordoned (either way) at once: a node NotReady for now and granted comes
//   back Ready to be drained, on top of the others.
// - Candidates: members whose GPUs differ from the spec (not up to date), not
//   failed, agent alive, in order (order_key, name; nodes lacking the order
//   label last). Up-to-date nodes are
//   never granted. A node that finished has its permission withdrawn in the
//   same decision, and counts as available once it is uncordoned. A node
//   whose permission was withdrawn before it finished (a new spec) counts
//   as holding it until its agent has seen the withdrawal.
// - A failed node keeps its permission (its agent does not retry a failed
//   spec generation) and counts against `failure_budget`: with more than
//   `failure_budget` failed members nothing new is granted (Degraded) until
//   the spec changes or a failure is cleared (`retry_requested`: the node's
//   permission is withdrawn and it queues again as pending).
// - A node whose agent has not reported on the current spec generation yet
//   is pending but not granted until it has.
// - `paused` and a closed maintenance window stop new grants only: nodes in
//   progress keep their permission and finish.
// - A node up to date that its agent cordoned for the change and has not
//   uncordoned yet (agent_cordoned) is finishing: the rollout is not
//   complete while any is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpupool/api/common_types.h"

namespace gpupool::pool {

// The agent's record on a Node it cordoned for a drain: whether the Node was
// unschedulable before ("true"/"false"); removed when the agent uncordons it
// (or leaves it cordoned as it was). Written by the agent (node_patches.h).
inline constexpr const char* kPreDrainUnschedulableAnnotation = "gpupool.io/pre-drain-unschedulable";

struct RolloutNode {
  std::string name;
  std::string order_key;        // ordering by a label: its value on the node; by name: ""
  bool lacks_order_label = false;  // ordering by a label the node does not have: after those that have it
  bool up_to_date = false;      // the agent reports the GPUs match this spec generation (driver and partitions)
  bool failed = false;          // the agent reports a failed operation for this spec generation
  bool retry_requested = false; // an administrator cleared the failure (annotation)
  bool granted = false;         // spec.disruptionAllowed is true now
  bool ready = true;            // the Node exists and is Ready
  bool cordoned = false;        // the Node is unschedulable
  // The agent holds the node cordoned for a change: kPreDrainUnschedulableAnnotation
  // is on the Node, or the GPUNode's status says so (its Drain operation
  // InProgress). The status is what counts when the two views differ: it
  // comes with the report of the change done, so a view of the Node older
  // than that report (one from before the cordon) cannot make a node that is
  // still cordoned look available.
  bool agent_cordoned = false;
  bool agent_alive = true;      // the agent's Lease is renewed within its duration
  // The agent has reported on this spec generation (status.observedGeneration).
  // A node it has not is never granted: a permission's own write bumps the
  // generation, so a node just withdrawn would look unfinished and be
  // granted again, around and around, until its agent caught up.
  bool reported = true;
  // Its permission was withdrawn by a write its agent has not seen yet (a
  // new spec written over a granted one): the agent, planning from the old
  // one, may still cordon. Held and unavailable until it reports.
  bool withdrawal_unseen = false;
};

struct RolloutSettings {
  std::int32_t max_unavailable = 1;  // resolved (resolve_max_unavailable)
  std::int32_t failure_budget = 1;
  bool paused = false;
  bool window_open = true;
  std::string window_message;        // why the window is closed ("next window opens ...")
};

struct RolloutDecision {
  std::vector<std::string> grant;        // set disruptionAllowed true
  std::vector<std::string> withdraw;     // set disruptionAllowed false
  // The order of those writes, so that the limit holds at every moment and
  // not only once all have landed: `grants_waiting` (of `grant`, in its
  // order) each wait until one of `freeing` has landed; the other grants fit
  // beside every permission held now and go at once, with the withdrawals.
  // `freeing`: withdrawals after which their node neither holds permission
  // nor is cordoned. Never fewer than `grants_waiting`.
  std::vector<std::string> grants_waiting;
  std::vector<std::string> freeing;
  std::vector<std::string> unavailable;  // after this decision, sorted
  std::vector<std::string> in_progress;  // granted and not finished, after this decision
  std::vector<std::string> finishing;    // up to date, not yet uncordoned by their agent
  std::vector<std::string> failed;       // failed and not cleared
  std::vector<std::string> pending;      // need the change, not granted yet
  std::vector<std::string> no_agent;     // need the change, but their agent is not heartbeating
  std::int32_t updated = 0;              // up to date
  bool budget_exhausted = false;         // more failed than failure_budget
  // Why nodes are pending and none is granted now ("" when nothing waits):
  // "paused (spec.paused)", "2 of 2 nodes unavailable (maxUnavailable 2): a, b", ...
  std::string waiting;
};

RolloutDecision decide_rollout(std::vector<RolloutNode> nodes, const RolloutSettings& settings);

// maxUnavailable as a node count for `members` nodes: an integer as given; a
// percentage of the members rounded down; never below 1 (so that a rollout
// can always progress).
std::int32_t resolve_max_unavailable(const api::IntOrString& value, std::int32_t members);

}  // namespace gpupool::pool
