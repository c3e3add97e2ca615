#include "gpupool/pool_controller/pool_reconciler.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <optional>
#include <set>
#include <thread>
#include <utility>

#include "gpupool/api/codec.h"
#include "gpupool/api/conditions.h"
#include "gpupool/common/parallel.h"
#include "gpupool/common/short_hash.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/json_access.h"
#include "gpupool/kube/resource.h"
#include "gpupool/pool/desired_spec.h"
#include "gpupool/pool/maintenance_window.h"
#include "gpupool/pool/membership.h"
#include "gpupool/pool/node_taints.h"
#include "gpupool/pool/pool_status.h"
#include "gpupool/pool/rollout.h"
#include "gpupool/runtime/field_index.h"
#include "gpupool/runtime/object_helpers.h"
#include "gpupool/stored/gpunode.h"
#include "object_facts.h"

namespace gpupool::pool_controller {
namespace {

using runtime::Result;
using Doc = rapidjson::Document;

kube::ResourceRef pools_ref() { return {{"gpupool.io", "v1alpha1", "gpupools"}, "", "", ""}; }
kube::ResourceRef gpunodes_ref() { return {{"gpupool.io", "v1alpha1", "gpunodes"}, "", "", ""}; }
kube::ResourceRef nodes_ref() { return {kube::core::nodes(), "", "", ""}; }

// The spec part of a GPUNode as JSON (the codec's encoding, defaults included).
rapidjson::Value encode_spec(const std::string& name, const api::GPUNodeSpec& spec, Doc::AllocatorType& alloc) {
  api::GPUNode n;
  n.metadata.name = name;
  n.spec = spec;
  rapidjson::Value whole = api::encode(n, alloc);
  return rapidjson::Value(whole["spec"], alloc);
}

rapidjson::Value encode_status(const api::GPUPoolStatus& status, Doc::AllocatorType& alloc) {
  api::GPUPool p;
  p.metadata.name = "x";
  p.status = status;
  rapidjson::Value whole = api::encode(p, alloc);
  return rapidjson::Value(whole["status"], alloc);
}

std::string string_json(const std::string& s) {
  Doc d;
  rapidjson::Value v(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), d.GetAllocator());
  return kube::to_json(v);
}

std::string labels_json(const std::map<std::string, std::string>& labels) {
  std::string out = "{";
  for (const auto& [k, v] : labels) out += (out.size() > 1 ? "," : "") + string_json(k) + ":" + string_json(v);
  return out + "}";
}

// API writes one pool pass has in flight at once (labels, taints, GPUNode
// specs, permissions: each on its own object). The client multiplexes them
// over HTTP/2. A pass waits on its rounds of writes, not on its CPU: at
// 5,000 nodes in pools of 250 (maxUnavailable 10 %: 25 withdrawals, then 25
// grants), 8 at once made 8 rounds and passes of 1.47 s, one pool after
// another, while the API server used about half of its 2 cores.
constexpr std::size_t kWritesInFlight = 32;

// Store indexes: which pools may still hold something on a Node (its pool
// label "label:<pool>"; a pool's label field manager with labels applied,
// "manager:<manager>"), and GPUNodes by spec.pool (runtime/field_index.h). A pass looks for what to
// release among these, not among every node of the fleet.
constexpr const char* kNodesByHolder = "gpupool-holders";

std::vector<std::string> node_holders(const kube::Object& node) {
  std::vector<std::string> out;
  const std::string pool = kube::string_at(node.doc, {"metadata", "labels", pool::kPoolLabel});
  if (!pool.empty()) out.push_back("label:" + pool);
  const rapidjson::Value* fields = kube::value_at(node.doc, {"metadata", "managedFields"});
  if (fields == nullptr || !fields->IsArray()) return out;
  for (const auto& f : fields->GetArray()) {
    const std::string manager = kube::string_of(kube::member(f, "manager"));
    if (!manager.starts_with(PoolReconciler::kLabelManagerPrefix)) continue;
    if (!applied_label_keys_of_entry(f).empty()) out.push_back("manager:" + manager);
  }
  return out;
}

// Where a pass's time goes, by step: logged at info when a pass is slow (the
// pools queued behind it wait for it too), at debug otherwise.
class PassClock {
 public:
  void lap(const char* step) {
    const auto now = std::chrono::steady_clock::now();
    laps_.emplace_back(step, std::chrono::duration<double, std::milli>(now - last_).count());
    last_ = now;
  }
  void log(const std::string& pool) const {
    const double total = std::chrono::duration<double, std::milli>(last_ - start_).count();
    std::string steps;
    for (const auto& [step, ms] : laps_) steps += fmt::format("{}{} {:.0f}", steps.empty() ? "" : ", ", step, ms);
    spdlog::log(total >= kSlow ? spdlog::level::info : spdlog::level::debug, "pool {}: pass took {:.0f} ms ({} ms)", pool,
                total, steps);
  }

 private:
  static constexpr double kSlow = 1000;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_ = start_;
  std::vector<std::pair<const char*, double>> laps_;
};

// Slots in a pool's limit that withdrawals free while a pass writes: a
// grant that needs one takes it once a freeing withdrawal has landed, or
// gives up when every freeing withdrawal has ended and none is left.
class SlotsFreed {
 public:
  explicit SlotsFreed(std::size_t withdrawals) : outstanding_(withdrawals) {}
  // A freeing withdrawal ended: landed, or failed (frees nothing).
  void settle(bool landed) {
    {
      std::lock_guard lock(mu_);
      if (outstanding_ > 0) --outstanding_;
      if (landed) ++free_;
    }
    cv_.notify_all();
  }
  // No withdrawal is left running (even one never started: a thread that
  // could not be created): waiting grants stop waiting.
  void close() {
    {
      std::lock_guard lock(mu_);
      outstanding_ = 0;
    }
    cv_.notify_all();
  }
  // Waits for a freed slot; false when none is left to come.
  bool take() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return free_ > 0 || outstanding_ == 0; });
    if (free_ == 0) return false;
    --free_;
    return true;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::size_t outstanding_, free_ = 0;
};

}  // namespace

struct PoolReconciler::Pass {
  Pass(PoolReconciler& owner, std::string pool) : r(owner), pool_name(std::move(pool)) {}
  PoolReconciler& r;
  std::string pool_name;
  std::chrono::system_clock::time_point now = std::chrono::system_clock::now();
  std::shared_ptr<const pool::Membership> membership;
  // The Nodes this pass looks at (members, conflicts, nodes to release), by name.
  std::map<std::string, std::shared_ptr<const kube::Object>> nodes;
  std::atomic<bool> busy = false;  // something is still changing: look again soon (set by parallel writes)

  kube::Client& client() { return r.client_; }

  void event(const rapidjson::Value& regarding, runtime::EventType type, const std::string& reason,
             const std::string& action, const std::string& note) {
    if (r.options_.events) r.options_.events->record(runtime::reference_to(regarding), type, reason, action, note);
  }

  // An Event about one member: on its Node (what `kubectl describe node`
  // shows), or on its GPUNode when the Node is gone.
  void node_event(const std::string& name, const kube::Object* gpunode, runtime::EventType type,
                  const std::string& reason, const std::string& action, const std::string& note) {
    if (!r.options_.events) return;
    auto node = nodes.find(name);
    if (node != nodes.end()) {
      runtime::ObjectReference ref;
      ref.api_version = "v1";
      ref.kind = "Node";
      ref.name = name;
      ref.uid = node->second->uid;
      r.options_.events->record(ref, type, reason, action, note);
    } else if (gpunode) {
      event(gpunode->doc, type, reason, action, note);
    }
  }

  // Server-side apply of `labels` (the complete set this pool wants there)
  // with the pool's field manager; nothing when already so.
  // Returns the Node's resourceVersion afterwards.
  std::string apply_labels(const kube::Object& node, const std::map<std::string, std::string>& labels) {
    if (labels_hold(node, labels)) return node.resource_version;
    return write_labels(node, labels);
  }

  // apply_labels' write, for a caller that has checked labels_hold.
  std::string write_labels(const kube::Object& node, const std::map<std::string, std::string>& labels) {
    const std::string manager = label_manager(pool_name);
    // With no labels the apply names none, so every label this manager held is released.
    const std::string body = R"({"apiVersion":"v1","kind":"Node","metadata":{"name":)" + string_json(node.name) +
                             (labels.empty() ? std::string() : R"(,"labels":)" + labels_json(labels)) + "}}";
    kube::PatchOptions po;
    po.field_manager = manager;
    po.force = true;
    auto out = client().patch(nodes_ref().with_name(node.name), kube::PatchType::Apply, body, po);
    spdlog::info("pool {}: node {} labels {}", pool_name, node.name, labels.empty() ? "released" : labels_json(labels));
    return kube::string_at(out, {"metadata", "resourceVersion"});
  }

  // Whether the Node has exactly `labels` applied by this pool's manager.
  bool labels_hold(const kube::Object& node, const std::map<std::string, std::string>& labels) const {
    const auto have = labels_of(node.doc);
    const auto owned = applied_label_keys(node.doc, label_manager(pool_name));
    bool same = owned.size() == labels.size();
    for (const auto& [k, v] : labels) {
      auto it = have.find(k);
      same = same && it != have.end() && it->second == v && owned.count(k);
    }
    return same;
  }

  // What the Node's taints need to become `desired`; nothing when they are so.
  std::optional<pool::TaintChange> taints_to_write(const kube::Object& node, const std::vector<api::Taint>& desired) const {
    return pool::taint_change(node_taints(node.doc), annotation_of(node.doc, pool::kPoolTaintsAnnotation), desired);
  }

  // `rv`: the Node's resourceVersion the taints were read at (or a later one
  // of our own label write, which does not touch taints).
  void apply_taints(const kube::Object& node, const std::vector<api::Taint>& desired, const std::string& rv) {
    if (const auto change = taints_to_write(node, desired)) write_taints(node, *change, rv);
  }

  // apply_taints' write, for a caller that has computed the change.
  void write_taints(const kube::Object& node, const pool::TaintChange& change, const std::string& rv) {
    std::string taints = "[";
    for (const auto& t : change.taints) {
      taints += (taints.size() > 1 ? "," : "") + std::string(R"({"key":)") + string_json(t.key) +
                (t.value.empty() ? "" : R"(,"value":)" + string_json(t.value)) + R"(,"effect":)" + string_json(t.effect) + "}";
    }
    taints += "]";
    const std::string annotation = change.recorded.empty() ? "null" : string_json(change.recorded);
    const std::string body = R"({"metadata":{"resourceVersion":)" + string_json(rv) +
                             R"(,"annotations":{")" + pool::kPoolTaintsAnnotation + R"(":)" + annotation +
                             R"(}},"spec":{"taints":)" + taints + "}}";
    client().patch(nodes_ref().with_name(node.name), kube::PatchType::MergePatch, body);  // 409: retried by the queue
    spdlog::info("pool {}: node {} taints now {}", pool_name, node.name, taints);
  }

  // Writes `spec` into the GPUNode (creating it when missing); returns the object written.
  GpuNodePtr write_spec(const std::string& name, const GpuNodePtr& current,
                                        const api::GPUNodeSpec& spec) {
    Doc out;
    if (!current) {
      Doc body;
      body.SetObject();
      auto& a = body.GetAllocator();
      body.AddMember("apiVersion", "gpupool.io/v1alpha1", a);
      body.AddMember("kind", "GPUNode", a);
      rapidjson::Value meta(rapidjson::kObjectType);
      meta.AddMember("name", rapidjson::Value(name.c_str(), a), a);
      auto node = nodes.find(name);
      if (node != nodes.end() && !node->second->uid.empty()) {
        Doc owner = kube::parse_json(R"([{"apiVersion":"v1","kind":"Node","name":)" + string_json(name) + R"(,"uid":)" +
                                     string_json(node->second->uid) + "}]");
        meta.AddMember("ownerReferences", rapidjson::Value(owner, a), a);
      }
      body.AddMember("metadata", meta, a);
      body.AddMember("spec", encode_spec(name, spec, a), a);
      try {
        out = client().create(gpunodes_ref(), kube::to_json(body));
      } catch (const kube::ApiError& e) {
        if (!e.is_already_exists()) throw;
        busy = true;  // the agent created it meanwhile: next pass
        return nullptr;
      }
    } else {
      Doc body;
      body.CopyFrom(current->doc, body.GetAllocator());
      body.RemoveMember("status");
      const auto* allowed = kube::value_at(body, {"spec", "disruptionAllowed"});
      const auto* generation = kube::value_at(body, {"metadata", "generation"});
      if (allowed && allowed->IsTrue() && generation && generation->IsInt64()) {
        // Its agent may be acting on this permission: held until it has seen
        // the new spec (the resourceVersion sent makes this the generation
        // replaced).
        auto& a = body.GetAllocator();
        auto& meta = body["metadata"];
        if (!meta.HasMember("annotations") || !meta["annotations"].IsObject()) {
          meta.RemoveMember("annotations");
          meta.AddMember("annotations", rapidjson::Value(rapidjson::kObjectType), a);
        }
        auto& annotations = meta["annotations"];
        annotations.RemoveMember(kWithdrawnGenerationAnnotation);
        annotations.AddMember(rapidjson::Value(kWithdrawnGenerationAnnotation, a),
                              rapidjson::Value(std::to_string(generation->GetInt64()).c_str(), a), a);
      }
      body.RemoveMember("spec");
      body.AddMember("spec", encode_spec(name, spec, body.GetAllocator()), body.GetAllocator());
      out = client().update(gpunodes_ref().with_name(name), kube::to_json(body));
    }
    return r.remember(name, out);
  }

  // `settled`: withdrawn from a node its agent reported up to date for the
  // generation of `current` (the resourceVersion precondition makes the
  // next generation that one with the permission off). Withdrawn otherwise:
  // the node is held until its agent has seen it. A grant clears both.
  void set_permission(const std::string& name, const GpuNodePtr& current, bool allowed,
                      bool clear_retry, bool settled) {
    const std::string rv = kube::string_at(current->doc, {"metadata", "resourceVersion"});
    const rapidjson::Value* gen = kube::value_at(current->doc, {"metadata", "generation"});
    const std::string generation = gen && gen->IsInt64() ? string_json(std::to_string(gen->GetInt64())) : "null";
    std::string body = R"({"metadata":{"resourceVersion":)" + string_json(rv) + R"(,"annotations":{")" +
                       kSettledGenerationAnnotation + R"(":)" + (!allowed && settled ? generation : "null") + R"(,")" +
                       kWithdrawnGenerationAnnotation + R"(":)" + (!allowed && !settled ? generation : "null");
    if (clear_retry) body += R"(,")" + std::string(kRetryAnnotation) + R"(":null)";
    body += "}";
    body += R"(},"spec":{"disruptionAllowed":)" + std::string(allowed ? "true" : "false") + "}}";
    Doc out = client().patch(gpunodes_ref().with_name(name), kube::PatchType::MergePatch, body);
    r.remember(name, out);
  }

  // A node this pool no longer has: its labels, taints and GPUNode released.
  void release(const kube::Object* node, const std::string& name) {
    if (node) {
      // Taints first, while the pool label still says they are ours (another
      // pool that took the node over replaces them itself).
      const bool ours = labels_of(node->doc)[pool::kPoolLabel] == pool_name;
      if (ours && !annotation_of(node->doc, pool::kPoolTaintsAnnotation).empty()) {
        apply_taints(*node, {}, node->resource_version);
        return;  // the labels go on the next pass, with the Node as it is then
      }
      if (!applied_label_keys(node->doc, label_manager(pool_name)).empty()) apply_labels(*node, {});
    }
    auto gn = r.gpunode(name);
    if (gn && kube::string_at(gn->doc, {"spec", "pool"}) == pool_name) {
      api::GPUNodeSpec spec = pool::unowned_gpunode_spec(name);
      write_spec(name, gn, spec);
      spdlog::info("pool {}: node {} released (spec.pool cleared, nothing desired)", pool_name, name);
      node_event(name, gn.get(), runtime::EventType::Normal, "Released", "Release",
                 "node left GPUPool " + pool_name + "; its GPUs are left as they are");
    }
  }

  // Writes `status` over the pool's, keeping what other writers own there.
  void write_status(const kube::Object& pool_obj, const api::GPUPoolStatus& status) {
    runtime::update_status(client(), pools_ref().with_name(pool_name), pool_obj.doc, [&](Doc& doc) {
      // status.granted is the quota controller's, and conditions of other
      // types the health and monitoring reconcilers': keep them as read (the
      // informer's copy; a conflict reads afresh).
      auto& a = doc.GetAllocator();
      rapidjson::Value granted;
      rapidjson::Value theirs(rapidjson::kArrayType);
      if (doc.HasMember("status") && doc["status"].IsObject()) {
        if (doc["status"].HasMember("granted")) granted.CopyFrom(doc["status"]["granted"], a);
        if (const auto* c = kube::value_at(doc["status"], {"conditions"}); c && c->IsArray()) {
          for (const auto& x : c->GetArray()) {
            if (!pool::own_condition(kube::string_of(kube::value_at(x, {"type"})))) theirs.PushBack(rapidjson::Value(x, a), a);
          }
        }
      }
      doc.RemoveMember("status");
      doc.AddMember("status", encode_status(status, a), a);
      auto& out = doc["status"];
      out.RemoveMember("granted");
      if (!granted.IsNull()) out.AddMember("granted", granted, a);
      if (!out.HasMember("conditions") || !out["conditions"].IsArray()) {
        out.RemoveMember("conditions");
        out.AddMember("conditions", rapidjson::Value(rapidjson::kArrayType), a);
      }
      auto& conditions = out["conditions"];
      for (auto it = conditions.Begin(); it != conditions.End();) {
        it = pool::own_condition(kube::string_of(kube::value_at(*it, {"type"}))) ? std::next(it) : conditions.Erase(it);
      }
      for (auto& x : theirs.GetArray()) conditions.PushBack(rapidjson::Value(x, a), a);
      return true;
    });
  }

  // Whether anything of this pool is still on `name` (labels, taints, GPUNode).
  bool holds(const kube::Object* node, const std::string& name) {
    if (node) {
      if (!applied_label_keys(node->doc, label_manager(pool_name)).empty()) return true;
      if (!annotation_of(node->doc, pool::kPoolTaintsAnnotation).empty() &&
          labels_of(node->doc)[pool::kPoolLabel] == pool_name) {
        return true;
      }
    }
    auto gn = r.gpunode(name);
    return gn && kube::string_at(gn->doc, {"spec", "pool"}) == pool_name;
  }
};

struct PoolReconciler::MemberFactsCache {
  // A member's GPUNode as a pass read it: whether it decoded, its state, its
  // permission, the desired layout's problem.
  struct Facts {
    bool decoded = false;
    GpuNodeState state;
    bool disruption_allowed = false;
    std::optional<std::string> problem;
    bool waiting_for_report = false;
  };
  struct Pool {
    std::string inputs;  // the pool's uid and generation, its policy's uid and resourceVersion
    std::map<std::string, std::pair<std::string, Facts>> members;  // node -> (GPUNode resourceVersion, facts)
  };
  std::map<std::string, Pool> by_pool;
};

PoolReconciler::~PoolReconciler() = default;

PoolReconciler::PoolReconciler(kube::Client& client, PoolStores stores, PoolReconcilerOptions options)
    : client_(client), stores_(stores), options_(std::move(options)),
      own_membership_(stores.membership ? nullptr : std::make_unique<MembershipCache>()),
      metrics_(options_.metrics ? std::make_unique<PoolMetrics>(*options_.metrics) : nullptr),
      member_facts_(std::make_unique<MemberFactsCache>()) {
  stores_.nodes.add_index(kNodesByHolder, node_holders);
  runtime::index_by_field(stores_.gpunodes, {"spec", "pool"});  // shared with the quota reconcilers
}

std::string PoolReconciler::label_manager(const std::string& pool) {
  const std::string name = std::string(kLabelManagerPrefix) + pool;
  if (name.size() <= 128) return name;
  return name.substr(0, 111) + "-" + common::short_hash(pool, 16);
}

PoolReconciler::GpuNodePtr PoolReconciler::gpunode(const std::string& name) {
  auto stored = stores_.gpunodes.get(name);
  std::lock_guard lock(mu_);
  auto it = written_.find(name);
  if (it != written_.end()) {
    if (stored == nullptr || newer_resource_version(it->second->resource_version, stored->resource_version)) {
      return it->second;
    }
    written_.erase(it);  // the store has caught up
  }
  return stored;
}

PoolReconciler::GpuNodePtr PoolReconciler::remember(const std::string& name, const rapidjson::Document& written) {
  auto obj = compact_answer_object(written);
  std::lock_guard lock(mu_);
  written_[name] = obj;
  return obj;
}

void PoolReconciler::forget_caught_up() {
  std::lock_guard lock(mu_);
  for (auto it = written_.begin(); it != written_.end();) {
    auto stored = stores_.gpunodes.get(it->first);
    const bool caught_up =
        stored != nullptr && !newer_resource_version(it->second->resource_version, stored->resource_version);
    it = caught_up ? written_.erase(it) : std::next(it);
  }
}

Result PoolReconciler::reconcile(const runtime::Request& request, std::stop_token) {
  Pass pass(*this, request.name);
  PassClock clock;
  const auto& catalog = *options_.catalog;
  // What the store shows now need not be remembered (gpunode() forgets only
  // the nodes a pass reads; a write to a node no pass reads again stayed).
  forget_caught_up();

  // Every pool's selector, and every node: membership is decided fleet-wide.
  std::vector<pool::PoolSelector> selectors;
  std::map<std::string, api::GPUPool> pools;
  for (const auto& obj : stores_.pools.list()) {
    auto decoded = api::decode_gpupool(obj->doc);
    if (!decoded.ok()) {
      spdlog::error("GPUPool {} cannot be read: {}", obj->name, api::format_field_errors(decoded.errors));
      continue;
    }
    selectors.push_back(pool_selector(*obj, *decoded.value));
    pools.emplace(obj->name, std::move(*decoded.value));
  }
  pass.membership = membership_cache().get(selectors, stores_.nodes);
  static const std::vector<std::string> no_members;
  static const std::vector<pool::Conflict> no_conflicts;
  const auto members_it = pass.membership->members.find(request.name);
  const auto conflicts_it = pass.membership->pool_conflicts.find(request.name);
  const auto& pool_conflicts = conflicts_it == pass.membership->pool_conflicts.end() ? no_conflicts : conflicts_it->second;
  // Members as the membership has them whose Node the store still has (one
  // removed since is left to the next pass, which sees it gone).
  std::vector<std::string> members;
  for (const auto& name : members_it == pass.membership->members.end() ? no_members : members_it->second) {
    if (auto n = stores_.nodes.get(name)) {
      pass.nodes[name] = std::move(n);
      members.push_back(name);
    }
  }
  std::vector<pool::Conflict> present_conflicts;
  for (const auto& c : pool_conflicts) {
    if (auto n = stores_.nodes.get(c.node)) {
      pass.nodes[c.node] = std::move(n);
      present_conflicts.push_back(c);
    }
  }

  auto pool_obj = stores_.pools.get(request.name);
  auto pool_it = pools.find(request.name);
  const std::set<std::string> member_set(members.begin(), members.end());
  std::set<std::string> conflicted;
  for (const auto& c : pool_conflicts) conflicted.insert(c.node);
  clock.lap("membership");

  // Release what this pool holds on nodes that are no longer its members:
  // the nodes and GPUNodes the indexes say it may hold something on, and
  // GPUNodes it wrote that the store does not show yet.
  std::set<std::string> names;
  for (const auto& n : stores_.nodes.by_index(kNodesByHolder, "label:" + request.name)) names.insert(n->name);
  for (const auto& n : stores_.nodes.by_index(kNodesByHolder, "manager:" + label_manager(request.name))) {
    names.insert(n->name);
  }
  for (const auto& g : runtime::by_field(stores_.gpunodes, {"spec", "pool"}, request.name)) names.insert(g->name);
  {
    std::lock_guard lock(mu_);
    for (const auto& [name, obj] : written_) {
      if (kube::string_at(obj->doc, {"spec", "pool"}) == request.name) names.insert(name);
    }
  }
  for (const auto& name : names) {
    if (pass.nodes.count(name)) continue;
    if (auto n = stores_.nodes.get(name)) pass.nodes[name] = std::move(n);
  }
  bool holding = false;
  // Nodes that vanished while they held permission: they still count as
  // unavailable until their GPUNode goes (with the Node, by its owner reference).
  std::vector<std::string> vanished;
  for (const auto& name : names) {
    if (member_set.count(name) || conflicted.count(name)) continue;
    auto it = pass.nodes.find(name);
    const kube::Object* node = it == pass.nodes.end() ? nullptr : it->second.get();
    if (!pass.holds(node, name)) continue;
    auto gn = gpunode(name);
    const rapidjson::Value* allowed = gn ? kube::value_at(gn->doc, {"spec", "disruptionAllowed"}) : nullptr;
    if (node == nullptr && allowed && allowed->IsTrue() && pool_obj && !pool_obj->deleting) {
      vanished.push_back(name);
      continue;
    }
    pass.release(node, name);
    holding = true;
  }
  clock.lap("release");
  if (!pool_obj || pool_it == pools.end() || pool_obj->deleting) {
    std::lock_guard lock(mu_);
    member_facts_->by_pool.erase(request.name);
  }
  if (!pool_obj || pool_it == pools.end()) {  // gone (or unreadable: logged)
    if (metrics_) metrics_->remove(request.name);
    return Result::done();
  }
  api::GPUPool& pool = pool_it->second;

  if (pool_obj->deleting) {
    if (metrics_) metrics_->remove(request.name);
    // Members are released too; then the finalizer goes.
    for (const auto& name : members) {
      auto it = pass.nodes.find(name);
      pass.release(it == pass.nodes.end() ? nullptr : it->second.get(), name);
      holding = true;
    }
    for (const auto& name : conflicted) {
      auto it = pass.nodes.find(name);
      if (it != pass.nodes.end()) pass.release(it->second.get(), name);
    }
    if (holding) return Result::requeue_after(std::chrono::seconds(1));  // until the stores show it all released
    runtime::remove_finalizer(client_, pools_ref().with_name(request.name), kPoolFinalizer);
    spdlog::info("pool {}: every node released; finalizer removed", request.name);
    return Result::done();
  }
  if (!runtime::has_finalizer(pool_obj->doc, kPoolFinalizer)) {
    runtime::add_finalizer(client_, pools_ref().with_name(request.name), kPoolFinalizer);
  }

  // Policy
  const api::GPUPolicy* policy = nullptr;
  std::optional<api::GPUPolicy> policy_value;
  std::optional<std::string> policy_problem;
  std::string inputs = pool_obj->uid + "/" + std::to_string(pool_obj->generation);
  if (pool.spec.policy_ref) {
    auto p = stores_.policies.get(pool.spec.policy_ref->name);
    inputs += p ? "|" + p->uid + "/" + p->resource_version : "|none";
    auto decoded = p ? api::decode_gpupolicy(p->doc) : api::Decoded<api::GPUPolicy>{};
    if (!p) {
      policy_problem = "GPUPolicy " + pool.spec.policy_ref->name + " (spec.policyRef) not found";
    } else if (!decoded.ok()) {
      policy_problem = "GPUPolicy " + pool.spec.policy_ref->name + " cannot be read: " + api::format_field_errors(decoded.errors);
    } else {
      policy_value = std::move(*decoded.value);
      policy = &*policy_value;
    }
  }

  // Labels and taints: members and conflicts.
  std::map<std::string, std::string> member_labels = pool.spec.node_labels;
  member_labels[pool::kPoolLabel] = request.name;
  // Each member's writes are its own: several at once, not one round trip
  // after another (a first start writes both on every node).
  // Only those whose labels or taints differ: on most passes none, and no
  // writer thread starts.
  struct MemberWrite {
    const kube::Object* node;
    bool labels;                               // labels to apply
    std::optional<pool::TaintChange> taints;  // taints to write
  };
  std::vector<MemberWrite> member_writes;
  for (const auto& name : members) {
    const auto& node = *pass.nodes.at(name);
    MemberWrite w{&node, !pass.labels_hold(node, member_labels), pass.taints_to_write(node, pool.spec.node_taints)};
    if (w.labels || w.taints) member_writes.push_back(std::move(w));
  }
  common::for_each_parallel(member_writes.size(), kWritesInFlight, [&](std::size_t i) {
    const MemberWrite& w = member_writes[i];
    const std::string rv = w.labels ? pass.write_labels(*w.node, member_labels) : w.node->resource_version;
    if (w.taints) pass.write_taints(*w.node, *w.taints, rv);
  });
  for (const auto& c : present_conflicts) {
    // Nobody acts on a node in a tie: whatever this pool had there goes, and
    // the node is labelled conflicted.
    const auto& node = *pass.nodes.at(c.node);
    if (labels_of(node.doc)[pool::kPoolLabel] == request.name &&
        !annotation_of(node.doc, pool::kPoolTaintsAnnotation).empty()) {
      pass.apply_taints(node, {}, node.resource_version);
      continue;  // the labels next pass, with the Node as it is then
    }
    pass.apply_labels(node, {{pool::kConflictLabel, pool::conflict_label_value(c)}});
    auto gn = gpunode(c.node);
    if (gn && kube::string_at(gn->doc, {"spec", "pool"}) == request.name) {
      pass.write_spec(c.node, gn, pool::unowned_gpunode_spec(c.node));
      spdlog::warn("pool {}: node {} is in a tie with {}; released until it is resolved", request.name, c.node,
                   pool::conflict_label_value(c));
    }
  }


  clock.lap("labels");
  const api::UpgradeStrategy upgrade = pool::effective_upgrade_strategy(pool, policy);
  const pool::WindowCheck window = pool::check_windows(upgrade.maintenance_windows, pass.now);

  pool::PoolStatusInput st;
  st.pool = request.name;
  st.generation = pool.metadata.generation;
  st.members = static_cast<std::int32_t>(members.size());
  st.conflicts = pool_conflicts;
  st.target_version = pool.spec.driver ? pool.spec.driver->version : "";
  st.paused = pool.spec.paused;
  st.window_open = window.open;
  st.policy_problem = policy_problem;
  st.spec_problems = window.errors;

  // Desired state per member, and what the rollout needs to know: from the
  // facts kept when neither the GPUNode nor the pool's inputs changed.
  struct Member {
    std::string name;
    GpuNodePtr gn;
    MemberFactsCache::Facts facts;
    pool::DesiredSpec desired;  // when planned afresh
    bool write = false;
  };
  MemberFactsCache::Pool kept, fresh;
  {
    std::lock_guard lock(mu_);
    kept = std::move(member_facts_->by_pool[request.name]);
  }
  if (kept.inputs != inputs) kept.members.clear();
  fresh.inputs = inputs;
  std::vector<Member> planned;
  for (const auto& name : members) {
    Member m{name, gpunode(name), {}, {}, false};
    const std::string version = m.gn ? kube::string_at(m.gn->doc, {"metadata", "resourceVersion"}) : "";
    if (auto it = kept.members.find(name); m.gn && it != kept.members.end() && it->second.first == version && !version.empty()) {
      m.facts = std::move(it->second.second);
      fresh.members.emplace(name, std::make_pair(version, m.facts));
      planned.push_back(std::move(m));
      continue;
    }
    std::optional<api::GPUNode> decoded;
    if (m.gn) {
      auto d = stored::decode_gpunode(*m.gn);
      if (!d.ok()) {
        spdlog::error("GPUNode {} cannot be read: {}", name, api::format_field_errors(d.errors));
        st.failures[name] = "its GPUNode cannot be read";
        continue;
      }
      decoded = std::move(*d.value);
    }
    pool::DesiredSpecInput in;
    in.pool = &pool;
    in.policy = policy;
    in.reported = decoded && decoded->status ? &*decoded->status : nullptr;
    in.catalog = &catalog;
    in.mig_parted = options_.mig_parted;
    m.desired = pool::desired_gpunode_spec(in);
    m.desired.spec.node_name = name;
    if (!policy_problem && !pool.spec.paused) {
      api::GPUNodeSpec compare = m.desired.spec;
      if (decoded) compare.disruption_allowed = decoded->spec.disruption_allowed;
      if (!decoded || decoded->spec != compare) {
        m.desired.spec.disruption_allowed = false;  // a new spec waits for its turn
        m.write = true;
      }
    }
    m.facts.decoded = decoded.has_value();
    if (decoded) m.facts.state = gpunode_state(*decoded);
    m.facts.disruption_allowed = decoded && decoded->spec.disruption_allowed;
    m.facts.problem = m.desired.problem;
    m.facts.waiting_for_report = m.desired.waiting_for_report;
    if (decoded && !m.write && !version.empty()) fresh.members.emplace(name, std::make_pair(version, m.facts));
    planned.push_back(std::move(m));
  }
  {
    std::lock_guard lock(mu_);
    member_facts_->by_pool[request.name] = std::move(fresh);
  }
  clock.lap("plan");
  std::vector<Member*> to_write;
  for (auto& m : planned) {
    if (m.write) to_write.push_back(&m);
  }
  common::for_each_parallel(to_write.size(), kWritesInFlight, [&](std::size_t i) {
    Member& m = *to_write[i];
    m.gn = pass.write_spec(m.name, m.gn, m.desired.spec);
  });
  if (!to_write.empty()) pass.busy = true;
  clock.lap("specs");

  std::vector<pool::RolloutNode> rollout_nodes;
  std::map<std::string, GpuNodePtr> current;
  for (const auto& m : planned) {
    const std::string& name = m.name;
    const auto& node = *pass.nodes.at(name);
    const auto& gn = m.gn;
    const MemberFactsCache::Facts& facts = m.facts;
    const bool spec_written = m.write;
    if (spec_written && gn) spdlog::info("pool {}: node {}: spec written", request.name, name);
    if (!gn) continue;
    current[name] = gn;

    const GpuNodeState state = spec_written || !facts.decoded ? GpuNodeState{} : facts.state;
    pool::RolloutNode rn;
    rn.name = name;
    if (upgrade.order.by == api::RolloutOrderBy::label) {
      const auto labels = labels_of(node.doc);
      auto it = labels.find(upgrade.order.label);
      rn.lacks_order_label = it == labels.end();
      if (it != labels.end()) rn.order_key = it->second;
    }
    rn.up_to_date = state.up_to_date && !facts.problem && !facts.waiting_for_report;
    rn.failed = facts.problem.has_value() || state.failed;
    if (rn.failed) st.failures[name] = facts.problem ? "layout: " + *facts.problem : state.failure;
    rn.retry_requested = !annotation_of(gn->doc, kRetryAnnotation).empty() && !facts.problem;
    rn.granted = !spec_written && facts.decoded && facts.disruption_allowed;
    rn.reported = !spec_written && state.observed;
    // A spec written over a permission withdraws it (write_spec annotates
    // it); the state read before the write says whether one was held.
    rn.withdrawal_unseen = spec_written ? facts.decoded && (facts.disruption_allowed || facts.state.withdrawal_unseen)
                                        : state.withdrawal_unseen;
    rn.ready = node_ready(node.doc);
    rn.cordoned = node_unschedulable(node.doc);
    // The status's word even while a new spec is written (state is empty then).
    rn.agent_cordoned = !annotation_of(node.doc, pool::kPreDrainUnschedulableAnnotation).empty() ||
                        (facts.decoded && facts.state.drain_held);
    auto lease = stores_.leases.get(kube::object_key(options_.agent_namespace, "gpupool-agent-" + name));
    rn.agent_alive = lease && lease_alive(lease->doc, pass.now);
    rollout_nodes.push_back(rn);
    if (rn.up_to_date && rn.ready) ++st.ready_members;
    for (const auto& [res, n] : gpu_capacity(node.doc)) st.capacity[res] += n;
  }

  for (const auto& name : vanished) {
    pool::RolloutNode rn;
    rn.name = name;
    rn.granted = true;
    rn.ready = false;
    rn.agent_alive = false;
    rollout_nodes.push_back(rn);
  }

  pool::RolloutSettings rs;
  rs.max_unavailable = pool::resolve_max_unavailable(upgrade.max_unavailable, st.members);
  rs.failure_budget = upgrade.failure_budget;
  rs.paused = pool.spec.paused || policy_problem.has_value();
  rs.window_open = window.open && window.errors.empty();
  if (!window.open) {
    rs.window_message = "outside the maintenance windows";
    if (window.next_open) {
      const auto t = std::chrono::time_point_cast<std::chrono::microseconds>(*window.next_open);
      rs.window_message += "; the next opens at " + api::Time(t).text();
    }
  }
  const pool::RolloutDecision decision = pool::decide_rollout(rollout_nodes, rs);
  clock.lap("decide");
  std::set<std::string> done;  // up to date: a withdrawal from one of these settles it
  for (const auto& n : rollout_nodes) {
    if (n.up_to_date) done.insert(n.name);
  }
  auto up_to_date = [&](const std::string& name) { return done.count(name) > 0; };

  st.rollout = decision;
  const api::GPUPoolStatus previous = pool.status.value_or(api::GPUPoolStatus{});
  const auto t = std::chrono::time_point_cast<std::chrono::microseconds>(pass.now);
  const api::GPUPoolStatus status = pool::build_pool_status(st, previous, api::Time(t));

  // The pool's status and the nodes' permissions are different objects, and
  // the status says what this pass decided, whatever the writes answer (a
  // failed one is retried by the queue, and the next pass corrects the
  // status): written at once, a pass waits for one round of writes fewer.
  std::exception_ptr status_failure;
  std::vector<char> granted(decision.grant.size(), 0);  // written (not given up for a failed withdrawal)
  {
    std::jthread status_writer;
    if (status != previous) {
      status_writer = std::jthread([&] {
        try {
          pass.write_status(*pool_obj, status);
        } catch (...) {
          status_failure = std::current_exception();
        }
      });
    }
    // Permissions: each its own GPUNode, written several at once, and the
    // limit holds at every moment: a grant that needs a withdrawal to have
    // landed first waits for one (the others go at once). Then what each
    // write means, in order.
    const std::set<std::string> freeing(decision.freeing.begin(), decision.freeing.end());
    const std::set<std::string> waiting(decision.grants_waiting.begin(), decision.grants_waiting.end());
    SlotsFreed slots(freeing.size());
    std::exception_ptr withdrawal_failure;
    {
      std::jthread withdrawals;  // beside the grants, when there are any
      if (!decision.withdraw.empty()) {
        withdrawals = std::jthread([&] {
          try {
            common::for_each_parallel(decision.withdraw.size(), kWritesInFlight, [&](std::size_t i) {
              const auto& name = decision.withdraw[i];
              const auto& gn = current.at(name);
              const bool frees = freeing.count(name) > 0;
              try {
                pass.set_permission(name, gn, false, !annotation_of(gn->doc, kRetryAnnotation).empty(), up_to_date(name));
              } catch (...) {
                if (frees) slots.settle(false);
                throw;
              }
              if (frees) slots.settle(true);
            });
          } catch (...) {
            withdrawal_failure = std::current_exception();
          }
          slots.close();
        });
      }
      common::for_each_parallel(decision.grant.size(), kWritesInFlight, [&](std::size_t i) {
        const auto& name = decision.grant[i];
        if (waiting.count(name) && !slots.take()) {
          pass.busy = true;  // its withdrawal failed: the next pass decides again
          return;
        }
        pass.set_permission(name, current.at(name), true, false, false);
        granted[i] = true;
      });
    }
    clock.lap("permissions");
    if (withdrawal_failure) std::rethrow_exception(withdrawal_failure);
  }  // the status written too
  clock.lap("status");
  if (status_failure) std::rethrow_exception(status_failure);
  for (const auto& name : decision.withdraw) {
    const auto& gn = current.at(name);
    if (up_to_date(name)) {
      pass.node_event(name, gn.get(), runtime::EventType::Normal, "Updated", "Update", "node matches GPUPool " + request.name);
    } else {
      pass.node_event(name, gn.get(), runtime::EventType::Normal, "RetryRequested", "Retry",
                 "failure cleared by annotation " + std::string(kRetryAnnotation) + "; the node waits for its turn again");
    }
  }
  for (std::size_t i = 0; i < decision.grant.size(); ++i) {
    if (!granted[i]) continue;
    const auto& name = decision.grant[i];
    spdlog::info("pool {}: node {} may be disrupted now", request.name, name);
    pass.node_event(name, current.at(name).get(), runtime::EventType::Normal, "DisruptionAllowed", "Update",
               "GPUPool " + request.name + " lets the agent drain and change the node now");
  }
  {
    std::lock_guard lock(mu_);
    auto& seen = reported_failures_[request.name];
    for (const auto& name : decision.failed) {
      if (!seen.insert(name).second) continue;
      pass.event(pool_obj->doc, runtime::EventType::Warning, "NodeFailed", "Update", name + ": " + st.failures[name]);
      auto gn = current.find(name);
      pass.node_event(name, gn == current.end() ? nullptr : gn->second.get(), runtime::EventType::Warning, "UpdateFailed",
                      "Update", "GPUPool " + request.name + ": " + st.failures[name]);
    }
    for (auto it = seen.begin(); it != seen.end();) {
      it = std::find(decision.failed.begin(), decision.failed.end(), *it) == decision.failed.end() ? seen.erase(it)
                                                                                                     : std::next(it);
    }
  }
  if (status != previous) {
    const bool newly_degraded = decision.budget_exhausted && (!previous.rollout || previous.nodes.failed <= upgrade.failure_budget);
    if (newly_degraded) {
      pass.event(pool_obj->doc, runtime::EventType::Warning, "RolloutHalted", "Update",
                 "more nodes failed than the failure budget of " + std::to_string(upgrade.failure_budget) +
                     " allows: " + decision.waiting);
    }
    // One Event on the pool per rollout: the nodes have their own per step
    // (a pool Event per node and step was half the rollout's Events, 4,000
    // writes at 2,000 nodes, and buried the pool's other Events).
    const auto* was = api::find_condition(previous.conditions, "Progressing");
    const auto* now = api::find_condition(status.conditions, "Progressing");
    if (was && was->status == api::ConditionStatus::true_ && now && now->status == api::ConditionStatus::false_ &&
        now->reason == "Complete") {
      pass.event(pool_obj->doc, runtime::EventType::Normal, "RolloutComplete", "Update", now->message);
    }
    if (pool.spec.paused && (!previous.rollout || !previous.rollout->paused)) {
      pass.event(pool_obj->doc, runtime::EventType::Normal, "RolloutPaused", "Pause", "spec.paused: no new node starts");
    }
  }
  if (metrics_) metrics_->set(request.name, status, rs.window_open);
  clock.lap("events");
  clock.log(request.name);

  const bool work_left = !decision.in_progress.empty() || !decision.finishing.empty() || !decision.pending.empty() ||
                         !decision.no_agent.empty() ||
                         !decision.withdraw.empty() || !decision.grant.empty();
  auto after = (work_left || pass.busy || holding) ? options_.busy_requeue : options_.idle_requeue;
  if (!window.open && window.next_open && !decision.pending.empty()) {
    const auto until = std::chrono::duration_cast<std::chrono::milliseconds>(*window.next_open - pass.now);
    if (until > std::chrono::milliseconds(0) && until < after) after = until + std::chrono::seconds(1);
  }
  return Result::requeue_after(after);
}

}  // namespace gpupool::pool_controller
