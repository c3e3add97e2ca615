// The GPUPool reconciler: one key per pool. Each pass reads the stores
// (pools, policies, Nodes, GPUNodes, the agents' Leases), calls the pure
// decisions of lib/pool and writes the results:
// 1. Membership (pool/membership.h): members get the label gpupool.io/pool
//    and the pool's nodeLabels by server-side apply with the pool's own field
//    manager (so only what the pool applied is ever removed), and its
//    nodeTaints (pool/node_taints.h); nodes in a tie get
//    gpupool.io/pool-conflict and are left alone; nodes that left get all of
//    it removed, their GPUNode's spec.pool cleared and nothing desired.
// 2. Desired state (pool/desired_spec.h) written into each member's GPUNode
//    spec (created, owned by its Node, when the agent has not yet), unless
//    the pool is paused; a spec change withdraws the node's permission.
// 3. The rollout (pool/rollout.h, pool/maintenance_window.h): permission
//    (spec.disruptionAllowed) withdrawn, then granted. Writes this
//    reconciler made are remembered until the store has caught up with
//    them, so a grant is never made on a view that misses an earlier one.
// 4. Status (pool/pool_status.h) and Events on the pool and the GPUNodes
//    (grants, completions, failures, pauses; the recorder folds repeats into
//    series); the status as gauges (pool_metrics.h) when options.metrics is set.
// Deletion (finalizer gpupool.io/pool-cleanup): every node released as in 1,
// permissions withdrawn, then the pool goes. The agent uncordons what it
// cordoned; an administrator's cordon and taints are never touched.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>

#include "gpupool/gpu/catalog.h"
#include "gpupool/gpu/mig_parted.h"
#include "gpupool/kube/client.h"
#include "gpupool/kube/object.h"
#include "gpupool/pool_controller/pool_metrics.h"
#include "gpupool/pool_controller/pool_stores.h"
#include "gpupool/runtime/controller.h"
#include "gpupool/runtime/event_recorder.h"
#include "gpupool/runtime/store.h"

namespace gpupool::pool_controller {

inline constexpr const char* kPoolFinalizer = "gpupool.io/pool-cleanup";
inline constexpr const char* kRetryAnnotation = "gpupool.io/retry";
// On a GPUNode: the generation its agent reported up to date when the
// controller withdrew its permission. The withdrawal bumps the generation
// and changes nothing else, so that report still holds for the next one
// (the pool stays Ready while the agent catches up). Cleared by a grant.
inline constexpr const char* kSettledGenerationAnnotation = "gpupool.io/settled-generation";
// On a GPUNode: the generation that held a permission the controller then
// withdrew by writing a new spec (or withdrew from a node it had not seen
// finish). Its agent may still be acting on that permission until it
// reports a later generation, so until then the node counts as disrupted.
// Cleared by a grant.
inline constexpr const char* kWithdrawnGenerationAnnotation = "gpupool.io/withdrawn-generation";


struct PoolReconcilerOptions {
  std::string agent_namespace = "gpupool-system";  // where the agents' Leases live
  const gpu::Catalog* catalog = nullptr;           // required
  const gpu::MigPartedConfig* mig_parted = nullptr;
  runtime::EventRecorder* events = nullptr;        // optional
  metrics::Registry* metrics = nullptr;            // optional: pool_metrics.h's gauges there
  std::chrono::milliseconds busy_requeue{std::chrono::seconds(5)};   // while nodes change
  std::chrono::milliseconds idle_requeue{std::chrono::minutes(5)};   // otherwise
};

class PoolReconciler : public runtime::Reconciler {
 public:
  PoolReconciler(kube::Client& client, PoolStores stores, PoolReconcilerOptions options);
  ~PoolReconciler() override;
  runtime::Result reconcile(const runtime::Request& request, std::stop_token stop) override;

  // The field manager of a pool's labels on its nodes.
  static std::string label_manager(const std::string& pool);
  // What every label_manager starts with: the managedFields entries the
  // reconciler reads (a Node store may drop all others).
  static constexpr std::string_view kLabelManagerPrefix = "gpupool-pool-";

 private:
  struct Pass;
  // The GPUNode as the store has it, or as this reconciler last wrote it when
  // the store has not caught up yet.
  using GpuNodePtr = std::shared_ptr<const kube::Object>;
  GpuNodePtr gpunode(const std::string& name);
  // Keeps a write's answer until the store shows it; returns it as kept.
  GpuNodePtr remember(const std::string& name, const rapidjson::Document& written);
  // Drops what it remembers of GPUNodes the store has caught up with.
  void forget_caught_up();

  kube::Client& client_;
  PoolStores stores_;
  PoolReconcilerOptions options_;
  std::unique_ptr<MembershipCache> own_membership_;  // when stores_.membership is none
  MembershipCache& membership_cache() { return stores_.membership ? *stores_.membership : *own_membership_; }
  std::unique_ptr<PoolMetrics> metrics_;  // when options_.metrics
  std::mutex mu_;
  std::map<std::string, GpuNodePtr> written_;  // GPUNode name -> our last write
  std::map<std::string, std::set<std::string>> reported_failures_;            // pool -> nodes whose failure had an Event
  // What a pass made of each member's GPUNode (its state, permission, layout
  // problem) when its spec needed no write, per pool: kept while the pool's
  // spec, its policy and that GPUNode are as they were, so a pass decodes and
  // plans only the GPUNodes that changed (250 decodes and layout plans a pass
  // were most of its CPU during a rollout at 5,000 nodes). Under mu_.
  struct MemberFactsCache;
  std::unique_ptr<MemberFactsCache> member_facts_;
};

}  // namespace gpupool::pool_controller
