#include "rollout_agents.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <stdexcept>

#include "gpupool/api/codec.h"
#include "gpupool/gpu/catalog.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/json_access.h"
#include "gpupool/kube/micro_time.h"
#include "gpupool/kube/resource.h"
#include "gpupool/node/disruption_permission.h"
#include "parallel_writes.h"

namespace gpupool::bench {
namespace {

const kube::ResourceRef kGpuNodes{{"gpupool.io", "v1alpha1", "gpunodes"}, "", "", ""};
const kube::ResourceRef kNodes{kube::core::nodes(), "", "", ""};

kube::ResourceRef leases(const std::string& ns) { return {{"coordination.k8s.io", "v1", "leases"}, ns, "", ""}; }
std::string lease_name(const std::string& node) { return "gpupool-agent-" + node; }  // node::agent_lease_name's

std::string lease_spec(const std::string& node, int duration_s) {
  return R"({"holderIdentity":")" + node + R"(","leaseDurationSeconds":)" + std::to_string(duration_s) +
         R"(,"renewTime":")" + kube::format_micro_time(std::chrono::system_clock::now()) + R"("})";
}

// What a pass reads of the GPUNode and the Node (either may be null).
SimObserved observed(const kube::Object* gpunode, const kube::Object* node) {
  SimObserved o;
  if (gpunode) {
    auto decoded = api::decode_gpunode(gpunode->doc);
    if (!decoded.ok()) {
      throw std::runtime_error("GPUNode " + gpunode->name + " cannot be read: " + api::format_field_errors(decoded.errors));
    }
    const auto& spec = decoded.value->spec;
    o.gpunode = true;
    o.generation = gpunode->generation;
    o.pooled = !spec.pool.empty();
    if (spec.driver) o.driver = spec.driver->version;
    o.mig = spec.partitioning.mig;
    o.disruption_allowed = spec.disruption_allowed;
  }
  if (node) {
    o.node = true;
    const rapidjson::Value* u = kube::value_at(node->doc, {"spec", "unschedulable"});
    o.unschedulable = u != nullptr && u->IsBool() && u->GetBool();
    const rapidjson::Value* a = kube::value_at(node->doc, {"metadata", "annotations", kPreDrainAnnotation});
    if (a != nullptr && a->IsString()) o.pre_drain = a->GetString();
  }
  return o;
}

// The Node's fields a pass reads, from a patch's answer.
void observe_node(SimObserved& o, const rapidjson::Document& node, std::string& resource_version) {
  const rapidjson::Value* u = kube::value_at(node, {"spec", "unschedulable"});
  o.unschedulable = u != nullptr && u->IsBool() && u->GetBool();
  const rapidjson::Value* a = kube::value_at(node, {"metadata", "annotations", kPreDrainAnnotation});
  o.pre_drain = a != nullptr && a->IsString() ? std::optional<std::string>(a->GetString()) : std::nullopt;
  resource_version = kube::string_of(kube::value_at(node, {"metadata", "resourceVersion"}));
}

// node_patches.h's cordon_patch and uncordon_patch.
std::string cordon_body(const SimObserved& o, const std::string& rv) {
  std::string meta = R"({"metadata":{"resourceVersion":")" + rv + R"(")";
  if (!o.pre_drain) meta += R"(,"annotations":{")" + std::string(kPreDrainAnnotation) + R"(":")" + (o.unschedulable ? "true" : "false") + R"("})";
  return meta + R"(},"spec":{"unschedulable":true}})";
}
std::string uncordon_body(const SimObserved& o, const std::string& rv) {
  return R"({"metadata":{"resourceVersion":")" + rv + R"(","annotations":{")" + std::string(kPreDrainAnnotation) +
         R"(":null}})" + (o.pre_drain == "false" ? R"(,"spec":{"unschedulable":false}})" : "}");
}

api::GPUNodeStatus without_heartbeat(api::GPUNodeStatus s) {
  s.last_heartbeat_time.reset();
  return s;
}

}  // namespace

SimHardware hardware_of(const ClusterShape& shape, std::size_t node) {
  const auto& pool = shape.pools.at(static_cast<std::size_t>(shape.nodes.at(node).pool));
  SimHardware h;
  h.catalog_id = pool.model;
  h.vendor = pool.vendor == "amd" ? api::GPUVendor::amd : api::GPUVendor::nvidia;
  h.gpus = shape.options.gpus_per_node;
  if (const auto* m = gpu::Catalog::builtin().find(pool.model)) {
    h.model = m->names.empty() ? m->display_name : m->names.front();
    h.memory_mib = m->memory_mib;
    h.mig_capable = m->mig.has_value();
  }
  return h;
}

AgentFleet::AgentFleet(kube::Client& client, const ClusterShape& shape, FleetOptions options)
    : client_(client), options_(std::move(options)), factory_(client) {
  for (std::size_t i = 0; i < shape.nodes.size(); ++i) {
    const auto& name = shape.nodes[i].name;
    names_.push_back(name);
    auto slot = std::make_unique<Slot>();
    slot->agent = std::make_unique<SimAgent>(name, hardware_of(shape, i), options_.install_time);
    slots_.emplace(name, std::move(slot));
  }
  // The Leases first: an agent counts as alive from its first renewal.
  create_all(client_, names_.size(), options_.writers, [&](std::size_t) { return leases(options_.lease_namespace); },
             [&](std::size_t i) {
               return R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":")" +
                      lease_name(names_[i]) + R"(","namespace":")" + options_.lease_namespace +
                      R"(","labels":{"app.kubernetes.io/name":"gpupool-agent"}},"spec":)" +
                      lease_spec(names_[i], options_.lease_duration_s) + "}";
             });
  gpunodes_ = factory_.get<kube::Object>(kGpuNodes);
  runtime::InformerOptions node_options;
  node_options.selectors.label_selector = kBenchPoolLabel;
  nodes_ = factory_.get<kube::Object>(kNodes, node_options);
  runtime::ControllerOptions co;
  co.name = "sim-agents";
  co.concurrency = std::max(1, options_.workers);
  co.shutdown_grace = std::chrono::seconds(2);
  runtime::Reconciler& passes = *this;  // the base is private: only the controller calls it
  controller_ = std::make_unique<runtime::Controller>(std::move(co), passes);
  controller_->watches<kube::Object>(*gpunodes_);
  controller_->watches<kube::Object>(*nodes_);
  factory_.start();
  if (!factory_.wait_for_sync(std::chrono::minutes(1))) {
    factory_.stop();
    throw std::runtime_error("the simulated agents' informers did not list GPUNodes and Nodes within a minute");
  }
  // Every agent makes a first pass (a node without a GPUNode yet gets one).
  for (const auto& name : names_) controller_->enqueue({"", name});
  controller_thread_ = std::jthread([this](std::stop_token stop) { controller_->run(stop); });
  int threads = options_.lease_threads > 0 ? options_.lease_threads
                                           : std::clamp(static_cast<int>(names_.size() / 250) + 1, 1, 16);
  for (int t = 0; t < threads; ++t) {
    lease_threads_.emplace_back([this, t, threads](std::stop_token stop) {
      renew_leases(static_cast<std::size_t>(t), static_cast<std::size_t>(threads), stop);
    });
  }
}

AgentFleet::~AgentFleet() { stop(); }

void AgentFleet::stop() {
  for (auto& t : lease_threads_) t.request_stop();
  if (controller_thread_.joinable()) {
    controller_thread_.request_stop();
    controller_thread_.join();
  }
  for (auto& t : lease_threads_) {
    if (t.joinable()) t.join();
  }
  factory_.stop();
}

FleetCounts AgentFleet::counts() const {
  const auto& c = counters_;
  return {c.passes, c.status_writes, c.cordons, c.uncordons, c.installs, c.conflicts, c.errors, c.lease_renewals,
          c.lease_failures};
}

void AgentFleet::renew_leases(std::size_t first, std::size_t step, std::stop_token stop) {
  std::vector<std::string> mine;
  for (std::size_t i = first; i < names_.size(); i += step) mine.push_back(names_[i]);
  if (mine.empty()) return;
  // Spread over the interval, so the API server sees a steady rate.
  const auto gap = options_.lease_interval / static_cast<long>(mine.size());
  std::mutex mu;
  std::condition_variable_any cv;
  auto next = std::chrono::steady_clock::now();
  while (!stop.stop_requested()) {
    for (const auto& node : mine) {
      next += gap;
      {
        std::unique_lock lock(mu);
        cv.wait_until(lock, stop, next, [] { return false; });
        if (stop.stop_requested()) return;
      }
      try {
        client_.patch(leases(options_.lease_namespace).with_name(lease_name(node)), kube::PatchType::MergePatch,
                      R"({"spec":)" + lease_spec(node, options_.lease_duration_s) + "}");
        ++counters_.lease_renewals;
      } catch (const std::exception& e) {
        ++counters_.lease_failures;
        spdlog::warn("simulated agent {}: lease renewal failed: {}", node, e.what());
      }
    }
  }
}

void AgentFleet::write_status(Slot& slot, const SimObserved& o) {
  api::GPUNodeStatus status = slot.agent->status(o, std::chrono::system_clock::now());
  if (slot.written && without_heartbeat(*slot.written) == without_heartbeat(status)) return;
  api::GPUNode wrap;
  wrap.metadata.name = slot.agent->node();
  wrap.spec.node_name = slot.agent->node();
  wrap.status = status;
  rapidjson::Document d;
  rapidjson::Value whole = api::encode(wrap, d.GetAllocator());
  rapidjson::Document body(rapidjson::kObjectType);
  body.AddMember("status", rapidjson::Value(whole["status"], body.GetAllocator()), body.GetAllocator());
  client_.patch(kGpuNodes.with_name(slot.agent->node()).with_subresource("status"), kube::PatchType::MergePatch,
                kube::to_json(body));
  ++counters_.status_writes;
  slot.written = std::move(status);
}

runtime::Result AgentFleet::reconcile(const runtime::Request& request, std::stop_token) {
  auto it = slots_.find(request.name);
  if (it == slots_.end()) return runtime::Result::done();  // not a bench node
  Slot& slot = *it->second;
  SimAgent& agent = *slot.agent;
  ++counters_.passes;
  const auto gn = gpunodes_->store().get(request.name);
  const auto node = nodes_->store().get(request.name);
  SimObserved o = observed(gn.get(), node.get());
  std::string node_rv = node ? node->resource_version : "";
  const auto again_soon = runtime::Result::requeue_after(std::chrono::milliseconds(200));
  try {
    agent.observe(o);
    for (int step = 0; step < 16; ++step) {
      const auto now = std::chrono::system_clock::now();
      const SimStep s = agent.next(o, now);
      switch (s) {
        case SimStep::create_gpunode:
          try {
            client_.create(kGpuNodes, R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUNode","metadata":{"name":")" +
                                          request.name + R"("},"spec":{"nodeName":")" + request.name + R"("}})");
          } catch (const kube::ApiError& e) {
            if (!e.is_already_exists()) throw;
          }
          return runtime::Result::done();  // its event brings the node back
        case SimStep::wait_install:
          write_status(slot, o);
          return runtime::Result::requeue_after(*agent.install_done_at() - now);
        case SimStep::cordon:
        case SimStep::uncordon: {
          if (s == SimStep::cordon && !o.pre_drain && !agent.holds_cordon()) {
            // The first cordon for this change: as the real agent, only while
            // a fresh read still grants the generation planned from.
            const auto check = node::check_permission(client_.get(kGpuNodes.with_name(request.name)), o.generation);
            if (check != node::PermissionCheck::holds) return again_soon;  // the store catches up
          }
          if (s == SimStep::uncordon && !o.pre_drain) {
            // Its own cordon is not in the store yet: read the Node afresh.
            observe_node(o, client_.get(kNodes.with_name(request.name)), node_rv);
            if (!o.pre_drain) {  // someone else removed the annotation: nothing to undo
              agent.done(s, o, now);
              break;
            }
          }
          // On a conflict the Node is read afresh and the patch tried once
          // more (as the real agent does): a store behind a busy Node costs
          // one GET, not a pass per retry.
          rapidjson::Document answer;
          bool patched = false, redecide = false;
          for (int attempt = 0; attempt < 2 && !patched && !redecide; ++attempt) {
            if (attempt > 0) {
              observe_node(o, client_.get(kNodes.with_name(request.name)), node_rv);
              redecide = agent.next(o, now) != s;  // the fresh Node needs no such patch (any more)
              if (redecide) break;
            }
            const std::string body = s == SimStep::cordon ? cordon_body(o, node_rv) : uncordon_body(o, node_rv);
            try {
              answer = client_.patch(kNodes.with_name(request.name), kube::PatchType::MergePatch, body);
              patched = true;
            } catch (const kube::ApiError& e) {
              if (!e.is_conflict()) throw;
              ++counters_.conflicts;
            }
          }
          if (redecide) break;  // the next step, from the fresh Node
          if (!patched) return again_soon;
          observe_node(o, answer, node_rv);
          ++(s == SimStep::cordon ? counters_.cordons : counters_.uncordons);
          agent.done(s, o, now);
          break;
        }
        case SimStep::start_install:
          agent.done(s, o, now);
          ++counters_.installs;
          write_status(slot, o);  // a long install shows as such
          return runtime::Result::requeue_after(*agent.install_done_at() - now);
        case SimStep::finish_install:
          agent.done(s, o, now);
          break;
        case SimStep::report:
          agent.done(s, o, now);
          write_status(slot, o);
          return runtime::Result::done();
      }
    }
    return again_soon;
  } catch (const std::exception& e) {
    ++counters_.errors;
    throw;  // logged and retried with backoff by the controller
  }
}

}  // namespace gpupool::bench
