#include "gpupool/pool_controller/pool_metrics.h"

#include <optional>

#include "gpupool/kube/client.h"
#include "object_facts.h"

namespace gpupool::pool_controller {
namespace {

// A quantity in its resource's unit: "8" -> 8, "2500m" -> 2.5.
std::optional<double> amount(const api::Quantity& q) {
  if (auto micro = q.micro_value()) return static_cast<double>(*micro) / 1e6;
  if (auto whole = q.whole_value()) return static_cast<double>(*whole);
  return std::nullopt;
}

}  // namespace

PoolMetrics::PoolMetrics(metrics::Registry& r) {
  capacity_ = &r.gauge_function_family("gpupool_pool_capacity",
                                       "Devices the GPUPool's member nodes advertise (status.capacity), by resource",
                                       {"pool", "resource"});
  granted_ = &r.gauge_function_family(
      "gpupool_pool_granted",
      "What the GPUPool grants its TenantQuotas (status.granted), by resource, in the resource's unit",
      {"pool", "resource"});
  member_nodes_ = &r.gauge_function_family("gpupool_pool_member_nodes", "Nodes that are members of the GPUPool", {"pool"});
  nodes_ = &r.gauge_function_family(
      "gpupool_pool_nodes",
      "The GPUPool's nodes by state (status.nodes): ready, updating, failed, conflicted; states overlap",
      {"pool", "state"});
  rollout_nodes_ = &r.gauge_function_family(
      "gpupool_pool_rollout_nodes", "The GPUPool's member nodes by rollout state: updated, pending, in_progress, failed",
      {"pool", "state"});
  rollout_paused_ = &r.gauge_function_family("gpupool_pool_rollout_paused",
                                             "1 while the GPUPool's rollout is paused (spec.paused), else 0", {"pool"});
  rollout_window_open_ = &r.gauge_function_family(
      "gpupool_pool_rollout_window_open",
      "1 while the GPUPool's maintenance windows let its rollout disrupt nodes (one is open, or none is set), else 0",
      {"pool"});
}

void PoolMetrics::set(const std::string& pool, const api::GPUPoolStatus& status, bool window_open) {
  std::vector<std::pair<Series, double>> values;
  auto add = [&](Family* family, std::vector<std::string> labels, double value) {
    values.emplace_back(Series{family, std::move(labels)}, value);
  };
  for (const auto& [resource, q] : status.capacity) {
    if (auto v = amount(q.quantity)) add(capacity_, {pool, resource}, *v);
  }
  for (const auto& [resource, q] : status.granted) {
    if (auto v = amount(q.quantity)) add(granted_, {pool, resource}, *v);
  }
  add(member_nodes_, {pool}, status.nodes.total);
  add(nodes_, {pool, "ready"}, status.nodes.ready);
  add(nodes_, {pool, "updating"}, status.nodes.updating);
  add(nodes_, {pool, "failed"}, status.nodes.failed);
  add(nodes_, {pool, "conflicted"}, status.nodes.conflicted);
  if (status.rollout) {
    const auto& r = *status.rollout;
    add(rollout_nodes_, {pool, "updated"}, r.updated);
    add(rollout_nodes_, {pool, "pending"}, r.pending);
    add(rollout_nodes_, {pool, "in_progress"}, status.nodes.updating);
    add(rollout_nodes_, {pool, "failed"}, r.failed);
    add(rollout_paused_, {pool}, r.paused ? 1.0 : 0.0);
  }
  add(rollout_window_open_, {pool}, window_open ? 1.0 : 0.0);

  std::lock_guard lock(mu_);
  std::set<Series> now;
  for (auto& [series, value] : values) {
    series.first->with(series.second).set([v = value] { return v; });
    now.insert(std::move(series));
  }
  auto& shown = shown_[pool];
  for (const auto& [family, labels] : shown) {
    if (!now.contains({family, labels})) family->with(labels).set({});
  }
  shown = std::move(now);
}

void PoolMetrics::remove(const std::string& pool) {
  std::lock_guard lock(mu_);
  auto it = shown_.find(pool);
  if (it == shown_.end()) return;
  for (const auto& [family, labels] : it->second) family->with(labels).set({});
  shown_.erase(it);
}

std::vector<metrics::FamilySnapshot> heartbeat_families(const runtime::Store<kube::Object>& gpunodes,
                                                        const runtime::Store<kube::Object>& leases,
                                                        const std::string& agent_namespace) {
  metrics::FamilySnapshot f;
  f.name = "gpupool_node_heartbeat_timestamp_seconds";
  f.help = "When the member node's agent last renewed its Lease, Unix seconds; 0 when it has none";
  f.kind = metrics::MetricKind::Gauge;
  f.label_names = {"pool", "node"};
  for (const auto& g : gpunodes.list()) {
    const std::string pool = kube::string_at(g->doc, {"spec", "pool"});
    if (pool.empty()) continue;
    double seconds = 0;
    if (auto lease = leases.get(kube::object_key(agent_namespace, "gpupool-agent-" + g->name))) {
      if (auto renewed = lease_renewed(lease->doc)) {
        seconds = std::chrono::duration<double>(renewed->time_since_epoch()).count();
      }
    }
    metrics::ChildSnapshot c;
    c.label_values = {pool, g->name};
    c.value = seconds;
    f.children.push_back(std::move(c));
  }
  return {std::move(f)};
}

}  // namespace gpupool::pool_controller
