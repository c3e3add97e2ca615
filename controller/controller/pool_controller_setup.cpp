#include "pool_controller_setup.h"
#include "stored_objects.h"

#include <algorithm>

#include "gpupool/api/conditions.h"
#include "gpupool/common/rfc3339.h"
#include "gpupool/kube/json_access.h"
#include "gpupool/kube/resource.h"
#include "gpupool/metrics/registry.h"
#include "gpupool/pool/membership.h"
#include "gpupool/pool_controller/selecting_pools.h"

namespace gpupool::controller {
namespace {

using runtime::Request;

// The condition of `type` in an object's status.conditions, or none.
const rapidjson::Value* condition_of(const rapidjson::Value& obj, std::string_view type) {
  const rapidjson::Value* conditions = kube::value_at(obj, {"status", "conditions"});
  if (conditions == nullptr || !conditions->IsArray()) return nullptr;
  for (const auto& c : conditions->GetArray()) {
    if (kube::string_of(kube::member(c, "type")) == type) return &c;
  }
  return nullptr;
}

std::string ready_status(const rapidjson::Value& node) {
  const rapidjson::Value* c = condition_of(node, "Ready");
  return c == nullptr ? "" : kube::string_of(kube::member(*c, "status"));
}

// Pool updates besides its spec and status: labels, annotations,
// finalizers, deletion.
bool pool_metadata_changed(const kube::Object& a, const kube::Object& b) {
  return kube::differs_at(a.doc, b.doc, {"metadata", "labels"}) ||
         kube::differs_at(a.doc, b.doc, {"metadata", "annotations"}) ||
         kube::differs_at(a.doc, b.doc, {"metadata", "finalizers"}) || a.deleting != b.deleting;
}

// Node updates that can move nodes between pools: labels (membership is
// decided by them) and deletion.
bool node_labels_changed(const kube::Object& a, const kube::Object& b) {
  return kube::differs_at(a.doc, b.doc, {"metadata", "labels"}) || a.deleting != b.deleting;
}

// Other Node updates that matter to the node's own pool: annotations, spec
// (cordon, taints), readiness and advertised capacity; not kubelet's
// heartbeats.
bool node_state_changed(const kube::Object& a, const kube::Object& b) {
  return kube::differs_at(a.doc, b.doc, {"metadata", "annotations"}) ||
         kube::differs_at(a.doc, b.doc, {"status", "capacity"}) || kube::differs_at(a.doc, b.doc, {"spec"}) ||
         ready_status(a.doc) != ready_status(b.doc);
}

// Whether a condition changed: appeared, went, or its status, reason,
// message, transition time or, with `generation`, its observedGeneration.
// A GPUNode's Healthy condition is read without the latter, which follows
// every spec write (each permission granted or withdrawn).
bool condition_differs(const rapidjson::Value* a, const rapidjson::Value* b, bool generation) {
  if (a == nullptr || b == nullptr) return a != b;
  for (const char* field : {"status", "reason", "message", "lastTransitionTime", "observedGeneration"}) {
    if ((generation || std::string_view(field) != "observedGeneration") && kube::differs_at(*a, *b, {field})) return true;
  }
  return false;
}

// What the health reconciler reads of a GPUNode changed: its pool, whether
// it has a status, its GPUs (health and reasons), its Healthy condition. An
// agent's rollout progress (operations, its other conditions) and the pool's
// permission do not wake it: at 500 nodes they made 6,000 health passes in a
// one-minute rollout, 40% of a core the API server needed.
bool gpunode_health_changed(const kube::Object& a, const kube::Object& b) {
  if (kube::string_at(a.doc, {"spec", "pool"}) != kube::string_at(b.doc, {"spec", "pool"})) return true;
  const auto sa = stored::gpunode_status(a);
  const auto sb = stored::gpunode_status(b);
  if (!sa || !sb) {  // one that does not decode: as its DOM shows it
    return sa.has_value() != sb.has_value() || a.doc.HasMember("status") != b.doc.HasMember("status") ||
           kube::differs_at(a.doc, b.doc, {"status", "gpus"}) ||
           condition_differs(condition_of(a.doc, "Healthy"), condition_of(b.doc, "Healthy"), false);
  }
  if (sa->gpus != sb->gpus) return true;
  const api::Condition* ca = api::find_condition(sa->conditions, "Healthy");
  const api::Condition* cb = api::find_condition(sb->conditions, "Healthy");
  if (!ca || !cb) return ca != cb;
  return ca->status != cb->status || ca->reason != cb->reason || ca->message != cb->message ||
         !(ca->last_transition_time == cb->last_transition_time);
}

// What the device plugin's ConfigMap reads of a GPUNode: its MIG strategy
// and sharing (a new GPUNode and a deleted one pass every predicate). Every
// permission granted or withdrawn changes a GPUNode's generation: at full
// size that made 2,409 passes in one rollout.
bool gpunode_plugin_inputs_changed(const kube::Object& a, const kube::Object& b) {
  if (a.deleting != b.deleting) return true;
  const auto sa = stored::gpunode_spec(a);
  const auto sb = stored::gpunode_spec(b);
  if (!sa || !sb) {  // one that does not decode: as its DOM shows it
    return sa.has_value() != sb.has_value() || kube::differs_at(a.doc, b.doc, {"spec", "partitioning", "strategy"}) ||
           kube::differs_at(a.doc, b.doc, {"spec", "sharing"});
  }
  return sa->partitioning.strategy != sb->partitioning.strategy || !(sa->sharing == sb->sharing);
}

// An agent's Lease renewal matters only when it revives an expired Lease.
bool lease_revived(const kube::Object& a, const kube::Object& b) {
  const auto renew = [](const kube::Object& o) { return parse_rfc3339(kube::string_at(o.doc, {"spec", "renewTime"})); };
  const auto ra = renew(a), rb = renew(b);
  if (!ra || !rb) return true;
  const auto& spec = b.doc.HasMember("spec") ? b.doc["spec"] : b.doc;
  const int duration = spec.HasMember("leaseDurationSeconds") && spec["leaseDurationSeconds"].IsInt()
                           ? spec["leaseDurationSeconds"].GetInt()
                           : 40;
  return *rb - *ra >= std::chrono::seconds(duration);
}

}  // namespace

PoolController::PoolController(runtime::Manager& manager, const std::string& agent_namespace, int concurrency,
                               const gpu::MigPartedConfig* mig_parted, runtime::EventRecorder* events,
                               const std::string& device_plugin_configmap,
                               pool_controller::MonitoringReconcilerOptions monitoring) {
  auto& inf = manager.informers();
  auto pools = inf.get<kube::Object>({{"gpupool.io", "v1alpha1", "gpupools"}, "", "", ""}, {}, stored_objects());
  auto policies = inf.get<kube::Object>({{"gpupool.io", "v1alpha1", "gpupolicies"}, "", "", ""}, {}, stored_objects());
  auto nodes = inf.get<kube::Object>({kube::core::nodes(), "", "", ""}, {}, stored_nodes());
  auto gpunodes = inf.get<kube::Object>({{"gpupool.io", "v1alpha1", "gpunodes"}, "", "", ""}, {}, stored_gpunodes());
  auto leases = inf.get<kube::Object>({{"coordination.k8s.io", "v1", "leases"}, agent_namespace, "", ""}, {}, stored_objects());

  pool_controller::PoolReconcilerOptions o;
  o.agent_namespace = agent_namespace;
  o.catalog = &gpu::Catalog::builtin();
  o.mig_parted = mig_parted;
  o.events = events;
  o.metrics = &metrics::default_registry();
  reconciler_ = std::make_unique<pool_controller::PoolReconciler>(
      manager.client(),
      pool_controller::PoolStores{pools->store(), policies->store(), nodes->store(), gpunodes->store(), leases->store(),
                                  membership_.get()},
      o);
  runtime::ControllerOptions co;
  co.name = "gpupool";
  // Pools' passes at once, whatever --concurrency says (more when it says
  // more). A pass waits on rounds of API writes, not on its CPU, and a pool
  // waits in the queue for the passes of every pool before it: at 5,000 nodes
  // in 20 pools, one pass at a time (2.9 s each) left a node that had finished
  // 56 s on average before its pool withdrew its permission and granted the
  // next. Passes of different pools touch different nodes (a node in a tie
  // belongs to none); a node moving between two pools is written with
  // resourceVersion preconditions, so one of two passes gets a conflict and
  // is retried.
  constexpr int kPoolPassesAtOnce = 4;
  co.concurrency = std::max(concurrency, kPoolPassesAtOnce);
  controller_ = std::make_unique<runtime::Controller>(std::move(co), *reconciler_);

  // Membership is fleet-wide: a pool or node change can move nodes between
  // any pools, so it wakes every pool (tens of them; the queue folds repeats).
  // Handlers capture stores by pointer, never the informers' shared_ptrs
  // (an informer holding a handler that holds the informer never dies).
  auto* pool_store = &pools->store();
  auto all_pools = [pool_store](const kube::Object&) {
    std::vector<Request> out;
    for (const auto& p : pool_store->list()) out.push_back({"", p->name});
    return out;
  };
  // A pool's spec or deletion can move nodes: every pool. Its metadata
  // (finalizers, labels, annotations) only itself; its status nothing: what
  // the pass writes there follows from the members, and the quota's and
  // health's parts are theirs. Waking every pool on each status write kept
  // all 20 of the benchmark's pools queued throughout a rollout, so a node's
  // report waited 1.3 s on average for its pool's next pass; and each pass's
  // own status write woke the pool again, to find nothing new.
  auto own = [](const kube::Object& p) { return std::vector<Request>{{"", p.name}}; };
  controller_->watches<kube::Object>(*pools, all_pools, runtime::generation_changed);
  controller_->watches<kube::Object>(*pools, own, pool_metadata_changed);
  // A Node's relabelling (and its arrival and departure: adds and deletes
  // pass every predicate) wakes the pools that select it before or after and
  // the pool its label names (pool_controller/selecting_pools.h); its other
  // changes (a cordon, its readiness) only the pool its label
  // gpupool.io/pool names, every pool when it names none that exists. During
  // a rollout of 500 nodes in 20 pools,
  // waking all on each cordon kept every pool queued, so a finished node
  // waited seconds for its own pool's turn.
  auto selecting_pools = std::make_shared<pool_controller::SelectingPools>(*pool_store);
  auto selecting = [selecting_pools](const kube::Object& n) { return (*selecting_pools)(n); };
  auto own_pool = [pool_store, all_pools](const kube::Object& n) {
    const std::string pool = kube::string_at(n.doc, {"metadata", "labels", pool::kPoolLabel});
    return !pool.empty() && pool_store->get(pool) ? std::vector<Request>{{"", pool}} : all_pools(n);
  };
  controller_->watches<kube::Object>(*nodes, selecting, node_labels_changed);
  controller_->watches<kube::Object>(*nodes, own_pool, node_state_changed);
  // A GPUNode wakes its pool (no pool: every pool); an agent's Lease the pool
  // of its node; a GPUPolicy the pools that use it.
  auto gpunode_to_pool = [all_pools](const kube::Object& g) {
    const std::string pool = kube::string_at(g.doc, {"spec", "pool"});
    return pool.empty() ? all_pools(g) : std::vector<Request>{{"", pool}};
  };
  auto* gpunode_store = &gpunodes->store();
  auto lease_to_pool = [gpunode_store](const kube::Object& l) {
    const std::string prefix = "gpupool-agent-";
    if (l.name.rfind(prefix, 0) != 0) return std::vector<Request>{};
    auto g = gpunode_store->get(l.name.substr(prefix.size()));
    const std::string pool = g ? kube::string_at(g->doc, {"spec", "pool"}) : "";
    return pool.empty() ? std::vector<Request>{} : std::vector<Request>{{"", pool}};
  };
  auto policy_to_pools = [pool_store](const kube::Object& policy) {
    std::vector<Request> out;
    for (const auto& p : pool_store->list()) {
      if (kube::string_at(p->doc, {"spec", "policyRef", "name"}) == policy.name) out.push_back({"", p->name});
    }
    return out;
  };
  controller_->watches<kube::Object>(*gpunodes, gpunode_to_pool);
  controller_->watches<kube::Object>(*leases, lease_to_pool, lease_revived);
  controller_->watches<kube::Object>(*policies, policy_to_pools);
  manager.add(*controller_);
  // Agents' heartbeats, read from the Lease store at each scrape (a Lease
  // renewal wakes no reconcile). The informers are shared with the collector,
  // which the process-wide registry keeps.
  metrics::default_registry().add_collector([gpunodes, leases, agent_namespace] {
    return pool_controller::heartbeat_families(gpunodes->store(), leases->store(), agent_namespace);
  });

  // GPU health: the same pools, woken by the same objects (GPUNode status
  // included); a pool change or a marked Node also wakes the sweep of nodes
  // outside every pool.
  pool_controller::HealthReconcilerOptions ho;
  ho.agent_namespace = agent_namespace;
  ho.events = events;
  ho.metrics = &metrics::default_registry();
  health_ = std::make_unique<pool_controller::HealthReconciler>(
      manager.client(),
      pool_controller::PoolStores{pools->store(), policies->store(), nodes->store(), gpunodes->store(), leases->store(),
                                  membership_.get()},
      ho);
  runtime::ControllerOptions hc;
  hc.name = "gpu-health";
  hc.concurrency = concurrency;
  health_controller_ = std::make_unique<runtime::Controller>(std::move(hc), *health_);
  health_controller_->watches<kube::Object>(
      *pools,
      [all_pools](const kube::Object& p) {
        auto out = all_pools(p);
        out.push_back({"", p.name});
        out.push_back(pool_controller::kOutsidePools);
        return out;
      },
      runtime::generation_changed);
  // Its own condition in the pool's status, should another writer drop it.
  health_controller_->watches<kube::Object>(*pools, own, [](const kube::Object& a, const kube::Object& b) {
    return pool_metadata_changed(a, b) || condition_differs(condition_of(a.doc, pool_controller::kHealthLimitCondition),
                                                            condition_of(b.doc, pool_controller::kHealthLimitCondition), true);
  });
  auto with_outside = [](auto mapper) {
    return [mapper](const kube::Object& n) {
      auto out = mapper(n);
      if (pool_controller::HealthReconciler::marked(n)) out.push_back(pool_controller::kOutsidePools);
      return out;
    };
  };
  // A relabelling only where it can move the node between pools: health
  // reads no other label.
  health_controller_->watches<kube::Object>(
      *nodes, with_outside(selecting), [selecting_pools](const kube::Object& a, const kube::Object& b) {
        return selecting_pools->selection_changed(a, b);
      });
  // Of a Node's other changes, those health reads (spec: cordon, taints;
  // annotations: its remediation record) and only where they can change a
  // decision (HealthReconciler::node_change_matters); not readiness or
  // capacity. A rollout at 5,000 nodes woke it 46,000 times in 19 minutes
  // (40 passes a second) before this and the predicates above.
  health_controller_->watches<kube::Object>(
      *nodes, with_outside(own_pool), [gpunode_store](const kube::Object& a, const kube::Object& b) {
        return pool_controller::HealthReconciler::node_change_matters(a, b, gpunode_store->get(b.name).get());
      });
  health_controller_->watches<kube::Object>(*gpunodes, gpunode_to_pool, gpunode_health_changed);
  health_controller_->watches<kube::Object>(*leases, lease_to_pool, lease_revived);
  health_controller_->watches<kube::Object>(*policies, policy_to_pools);
  manager.add(*health_controller_);

  // Each pool's monitoring objects: woken by its spec and its policy (the
  // alerts' thresholds); requeued to find CRDs installed later.
  monitoring.objects.namespace_name = agent_namespace;
  monitoring.events = events;
  monitoring_ = std::make_unique<pool_controller::MonitoringReconciler>(manager.client(), pools->store(),
                                                                        policies->store(), std::move(monitoring));
  runtime::ControllerOptions mc;
  mc.name = "gpupool-monitoring";
  mc.concurrency = concurrency;
  monitoring_controller_ = std::make_unique<runtime::Controller>(std::move(mc), *monitoring_);
  monitoring_controller_->watches<kube::Object>(*pools, {}, runtime::generation_changed);
  monitoring_controller_->watches<kube::Object>(*policies, policy_to_pools, runtime::generation_changed);
  manager.add(*monitoring_controller_);

  // The device plugin's ConfigMap: one key, woken by spec changes of pools and by GPUNodes' strategy and sharing.
  const auto slash = device_plugin_configmap.find('/');
  const std::string cm_ns = slash == std::string::npos ? agent_namespace : device_plugin_configmap.substr(0, slash);
  const std::string cm_name = slash == std::string::npos ? device_plugin_configmap : device_plugin_configmap.substr(slash + 1);
  plugin_config_ = std::make_unique<pool_controller::DevicePluginConfigReconciler>(
      manager.client(), pools->store(), gpunodes->store(), gpu::Catalog::builtin(), cm_ns, cm_name);
  runtime::ControllerOptions pc;
  pc.name = "device-plugin-config";
  plugin_config_controller_ = std::make_unique<runtime::Controller>(std::move(pc), *plugin_config_);
  auto one_key = [](const kube::Object&) { return std::vector<Request>{{"", "device-plugin-config"}}; };
  plugin_config_controller_->watches<kube::Object>(*pools, one_key, runtime::generation_changed);
  plugin_config_controller_->watches<kube::Object>(*gpunodes, one_key, gpunode_plugin_inputs_changed);
  manager.add(*plugin_config_controller_);

  // GPUPolicy status: the pools that reference each policy.
  policy_status_ = std::make_unique<pool_controller::PolicyStatusReconciler>(manager.client(), policies->store(), pools->store());
  runtime::ControllerOptions ps;
  ps.name = "gpupolicy-status";
  policy_status_controller_ = std::make_unique<runtime::Controller>(std::move(ps), *policy_status_);
  policy_status_controller_->watches<kube::Object>(*policies, {}, runtime::generation_changed);
  policy_status_controller_->watches<kube::Object>(*pools, [](const kube::Object& p) {
    const std::string policy = kube::string_at(p.doc, {"spec", "policyRef", "name"});
    return policy.empty() ? std::vector<Request>{} : std::vector<Request>{{"", policy}};
  });
  manager.add(*policy_status_controller_);
}

}  // namespace gpupool::controller
