// The GPU health reconciler: the controller's side of GPU health
// (docs/api.md, "GPU health"). One key per GPUPool. Each pass reads the
// stores (pools, policies, Nodes, GPUNodes, the agents' Leases), resolves the
// pool's members as the pool reconciler does, turns each member into a
// pool::HealthNode (summarize_gpus over its GPUNode status by the policy's
// rules; unhealthy since the Healthy condition went False; the agent's Lease
// alive; the Node's taint, cordon and annotation), calls
// pool::decide_remediation and applies it:
// - Node patches (JSON merge patch carrying the resourceVersion read, so a
//   concurrent change makes it fail and the pass is retried): the taint
//   gpupool.io/gpu-unhealthy:NoSchedule added or removed (every other taint
//   kept as it is), spec.unschedulable set or cleared, the annotation
//   gpupool.io/health-remediation set or removed;
// - an Event on the Node per change (GPUUnhealthyTainted,
//   GPUUnhealthyCordoned: Warning; GPUHealthRecovered: Normal) and one when a
//   node starts being held back by maxUnhealthyNodes
//   (GPUUnhealthyLimitReached, Warning), and one when a node's GPUs become
//   Degraded (kEventHealthDegraded, Warning: reported, nothing taken out);
// - the pool condition UnhealthyNodesHeldBack: True (reason
//   MaxUnhealthyNodes) naming the held-back nodes while the limit keeps an
//   unhealthy node in service, else False (WithinLimit); written only for
//   pools whose policy has health rules (or that have it already);
// - the counter gpupool_health_remediations_total{pool, action} (action:
//   taint, cordon, clear), one per node taken out, switched or cleared.
// A pool without a policy, or whose policy has no health rules, clears what
// it had taken out. A pool whose policy cannot be read changes nothing.
// The key kOutsidePools (not a pool: pools are cluster-scoped) clears nodes
// that carry our taint or cordon but belong to no pool any more (the pool
// deleted or its selector changed); nodes in a tie between pools are left.
// Only this reconciler taints or cordons for health; the agent writes only
// the GPUNode status (and withdraws the Unhealthy GPUs from what it
// advertises once the node is taken out).
#pragma once

#include <rapidjson/document.h>

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "gpupool/kube/client.h"
#include "gpupool/kube/object.h"
#include "gpupool/metrics/registry.h"
#include "gpupool/pool_controller/pool_stores.h"
#include "gpupool/runtime/controller.h"
#include "gpupool/runtime/event_recorder.h"
#include "gpupool/runtime/store.h"

namespace gpupool::pool_controller {

inline constexpr const char* kHealthLimitCondition = "UnhealthyNodesHeldBack";
inline constexpr const char* kEventHealthDegraded = "GPUDegraded";
// The key that sweeps nodes outside every pool.
inline const runtime::Request kOutsidePools{"gpupool.io", "nodes-outside-pools"};


struct HealthReconcilerOptions {
  std::string agent_namespace = "gpupool-system";  // where the agents' Leases live
  runtime::EventRecorder* events = nullptr;        // optional
  metrics::Registry* metrics = nullptr;            // optional: gpupool_health_remediations_total there
  std::chrono::milliseconds idle_requeue{std::chrono::minutes(5)};
};

class HealthReconciler : public runtime::Reconciler {
 public:
  HealthReconciler(kube::Client& client, PoolStores stores, HealthReconcilerOptions options);
  ~HealthReconciler() override;
  runtime::Result reconcile(const runtime::Request& request, std::stop_token stop) override;

  // Whether a Node carries anything of ours (the taint or the annotation):
  // such a node wakes kOutsidePools too.
  static bool marked(const kube::Object& node);

  // Whether a Node's update from `before` to `after` can change what a pass
  // decides: its spec (cordon, taints) or annotations changed, and it is
  // marked (before or after), or its GPUNode (`gpunode`, none when missing)
  // reports an Unhealthy GPU. A healthy, unmarked node's cordon decides
  // nothing (pool::decide_remediation): a rollout's cordon and uncordon of
  // every node made two thirds of the health passes at 5,000 nodes.
  static bool node_change_matters(const kube::Object& before, const kube::Object& after, const kube::Object* gpunode);

 private:
  struct Pass;
  runtime::Result sweep_outside_pools();
  void count(const std::string& pool, const char* action);

  kube::Client& client_;
  PoolStores stores_;
  HealthReconcilerOptions options_;
  std::unique_ptr<MembershipCache> own_membership_;  // when stores_.membership is none
  MembershipCache& membership_cache() { return stores_.membership ? *stores_.membership : *own_membership_; }
  metrics::Family<metrics::Counter>* remediations_ = nullptr;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<const rapidjson::Document>> written_;  // Node name -> our last patch's answer
  std::map<std::string, std::set<std::string>> held_back_;  // pool -> nodes whose hold-back had an Event
  std::map<std::string, std::set<std::string>> degraded_;   // pool -> nodes whose Degraded GPUs had an Event
  // Per pool, what each member's GPUNode said of its GPUs' health at the
  // last pass, by the GPUNode's and the policy's resourceVersions.
  struct GpuFactsCache;
  std::unique_ptr<GpuFactsCache> gpu_facts_;
};

}  // namespace gpupool::pool_controller
