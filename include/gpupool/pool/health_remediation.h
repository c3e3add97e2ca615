// Which nodes of a pool are taken out (tainted or cordoned) for GPU health,
// within the policy's maxUnhealthyNodes: the controller's side of GPU health
// (docs/api.md, "GPU health"; the agent judges each GPU, gpu_health.h).
// Pure and deterministic; the pool reconciler reads GPUNodes (status.gpus)
// and Nodes (taints, unschedulable, the annotation below) into HealthNodes,
// calls decide_remediation, patches the Nodes as decided, records an Event
// per change (event_reason, message) and per node held back.
//
// Ownership (what is ours, so the only thing ever undone):
// - the taint kUnhealthyTaintKey (any value or effect; we add it with an
//   empty value and effect NoSchedule). The key is reserved for this.
// - the cordon, only while the annotation kHealthRemediationAnnotation says
//   "Cordon <since>" and the node is unschedulable.
// The annotation records what we did and since when: "Taint <RFC 3339>" or
// "Cordon <RFC 3339>"; removed when we clear the node. A node cordoned by
// anyone else (an administrator, the agent draining it for a rollout, whose
// gpupool.io/pre-drain-unschedulable then keeps it cordoned after the drain)
// is neither cordoned, tainted, counted nor uncordoned by us: it is out of
// scheduling already; when it is uncordoned we act on it as on any node.
// If someone removes our taint or uncordons our cordon while the node is
// still unhealthy, it is taken out again (subject to the limit): to keep such
// a node in service, change the rule's action.
//
// Rules:
// - wanted: the strongest action asked for by the node's Unhealthy GPUs
//   (summarize_gpus). Cordon supersedes Taint: a cordoned node carries no
//   taint of ours (taken off when switching to Cordon; put back, with the
//   cordon lifted, when the node only asks for Taint again). A node we
//   tainted that someone else cordons keeps only our taint.
// - A node we took out whose GPUs are no longer Unhealthy is cleared at once
//   (the agent has already waited recoveryPeriod, gpu_health.h): our taint
//   removed, our cordon lifted, the annotation removed. Nodes whose agent is
//   not current (status_current false) keep what they have.
// - The limit counts only nodes taken out by us (after this decision's
//   clears): limit = resolve_max_unhealthy_nodes(maxUnhealthyNodes, member
//   count). Nodes already taken out keep their place while they are
//   unhealthy, even above a lowered limit. New ones are taken longest
//   unhealthy first (unhealthy_since, nodes without one after those with
//   one), then by name; the rest are held back: reported, not taken out.
// - No timer: recovery is timed by the agent, whose status change wakes the
//   controller; held-back nodes are reconsidered on the next pass (any
//   GPUNode or Node change of the pool).
// - Output lists are sorted by name, except take_out and held_back, which
//   are in the order nodes were considered. The input order never matters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/api/common_types.h"
#include "gpupool/api/gpunode.h"
#include "gpupool/api/gpupolicy.h"
#include "gpupool/pool/gpu_health.h"

namespace gpupool::pool {

// Contracts with users and with the agent (docs/api.md).
inline constexpr const char* kUnhealthyTaintKey = "gpupool.io/gpu-unhealthy";
inline constexpr const char* kUnhealthyTaintEffect = "NoSchedule";
inline constexpr const char* kHealthRemediationAnnotation = "gpupool.io/health-remediation";

// Event reasons (type Warning, except kEventHealthCleared: Normal).
inline constexpr const char* kEventHealthTainted = "GPUUnhealthyTainted";
inline constexpr const char* kEventHealthCordoned = "GPUUnhealthyCordoned";
inline constexpr const char* kEventHealthCleared = "GPUHealthRecovered";
inline constexpr const char* kEventHealthLimited = "GPUUnhealthyLimitReached";

// The annotation's value: what we did (Taint or Cordon) and since when.
struct RemediationRecord {
  api::HealthAction action = api::HealthAction::taint;  // taint or cordon
  HealthTime since{};
  bool operator==(const RemediationRecord&) const = default;
};
std::string format_remediation_record(const RemediationRecord& r);  // "Cordon 2026-05-01T10:00:00Z"
std::optional<RemediationRecord> parse_remediation_record(std::string_view text);

// Whether the controller has taken the node out for GPU health (so the agent
// withdraws its Unhealthy GPUs): it carries our taint, or our cordon.
bool is_taken_out_for_health(bool has_unhealthy_taint, bool unschedulable, const std::optional<std::string>& record);

// What a node's GPUs ask for, from the GPUNode status as the agent wrote it,
// by the rules the controller holds (the pool's policy): for each Unhealthy
// GPU, the strongest action of its reasons' causes (parse_health_reason,
// rule_action). An Unhealthy GPU whose reasons name no cause with an action
// asks for nothing (and is named in `reason` all the same).
struct NodeHealthSummary {
  api::HealthAction wanted = api::HealthAction::none;
  std::string reason;  // "GPU 3: XID 79 at ...; GPU 5: ...", at most 3 GPUs then "and N more GPUs"; "" when none
  std::vector<std::int32_t> unhealthy_gpus;  // indexes, as listed
};
NodeHealthSummary summarize_gpus(const api::HealthRules& rules, const std::vector<api::GPUStatus>& gpus);

struct HealthNode {
  std::string name;
  // From the GPUNode (summarize_gpus):
  api::HealthAction wanted = api::HealthAction::none;
  std::string reason;
  std::optional<HealthTime> unhealthy_since;  // e.g. the Healthy condition's lastTransitionTime while False
  bool status_current = true;  // the agent heartbeats; false: its GPUs' health is unknown, nothing changes
  // From the Node:
  bool unschedulable = false;
  bool has_unhealthy_taint = false;     // carries kUnhealthyTaintKey
  std::optional<std::string> record;    // kHealthRemediationAnnotation's value, when present
};

struct RemediationSettings {
  std::string pool;
  api::IntOrString max_unhealthy_nodes = "10%";
};

// One Node change. `action` is what the node is taken out with after it:
// Taint or Cordon, or None when cleared.
struct NodeRemediation {
  std::string node;
  api::HealthAction action = api::HealthAction::none;
  bool add_taint = false;     // kUnhealthyTaintKey, "", NoSchedule
  bool remove_taint = false;  // every taint with kUnhealthyTaintKey
  bool cordon = false;
  bool uncordon = false;
  std::optional<std::string> record;  // the annotation's new value; nullopt: remove it
  std::string event_reason;           // "" for bookkeeping that needs no Event
  std::string message;

  bool operator==(const NodeRemediation&) const = default;
};

struct HeldBack {
  std::string node;
  // "node n7 has an unhealthy GPU (GPU 3: ...) but 2 of 2 allowed nodes of pool p are already remediated
  // (maxUnhealthyNodes 20% of 10 nodes): reported, not taken out"
  std::string message;
  bool operator==(const HeldBack&) const = default;
};

struct RemediationDecision {
  std::vector<NodeRemediation> take_out;  // newly tainted or cordoned, in the order taken
  std::vector<NodeRemediation> adjust;    // ours and still unhealthy: switched Taint <-> Cordon, record repaired;
                                          // or a stale record of a node that is not ours removed
  std::vector<NodeRemediation> clear;     // ours and no longer unhealthy: taint removed, cordon lifted
  std::vector<HeldBack> held_back;        // unhealthy, not taken out because of the limit, in order
  std::vector<std::string> taken_out;     // ours after this decision
  std::vector<std::string> not_ours;      // unhealthy but already cordoned by someone else: left alone
  std::vector<std::string> unknown;       // agent not current: left as they are
  std::int32_t limit = 0;                 // maxUnhealthyNodes resolved for this pool
  // "2 of 10 nodes of pool p taken out for GPU health (limit 2); held back: n3, n4"; "" when none is unhealthy or out.
  std::string summary;
};

// `nodes`: every member of the pool (healthy ones too: they count for a percentage).
RemediationDecision decide_remediation(std::vector<HealthNode> nodes, const RemediationSettings& settings,
                                       HealthTime now);

// maxUnhealthyNodes as a node count for `members` nodes: an integer as given
// (negative: 0); a percentage of the members rounded down, but at least 1
// when the percentage is above 0 and there are members.
std::int32_t resolve_max_unhealthy_nodes(const api::IntOrString& value, std::int32_t members);

}  // namespace gpupool::pool
