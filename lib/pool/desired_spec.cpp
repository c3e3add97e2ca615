#include "gpupool/pool/desired_spec.h"

#include <algorithm>
#include <set>
#include <variant>

#include "gpupool/gpu/mig_planner.h"
#include "gpupool/gpu/named_layouts.h"
#include "gpupool/validation/semantic.h"

namespace gpupool::pool {
namespace {

std::string gpu_text(const api::GPUStatus& g, const gpu::GpuModel* model) {
  return "GPU " + std::to_string(g.index) + " (" + (model ? gpu::short_name(*model) : g.model) + ")";
}

// Instances of `counts` for one GPU, largest profile first (stable order for the spec).
std::vector<api::MIGInstance> instances_of(const gpu::ProfileCounts& counts, const gpu::GpuModel& model) {
  std::vector<std::pair<int, std::string>> order;
  for (const auto& [profile, n] : counts) {
    const auto* p = model.mig ? model.mig->profile(profile) : nullptr;
    order.emplace_back(p ? -p->memory_slices * 100 - p->compute_slices : 0, profile);
  }
  std::sort(order.begin(), order.end());
  std::vector<api::MIGInstance> out;
  for (const auto& [rank, profile] : order) {
    for (int i = 0; i < counts.at(profile); ++i) out.push_back({profile, std::nullopt});
  }
  return out;
}

// The MIG layout for every NVIDIA GPU of the node, or why there is none.
std::variant<std::vector<api::GPUMIGLayout>, std::string> mig_layouts(const api::MIGPartitioning& mig,
                                                                      const api::GPUNodeStatus& reported,
                                                                      const DesiredSpecInput& in) {
  std::vector<api::GPUMIGLayout> out;
  std::set<std::int32_t> named;
  for (const auto& d : mig.devices) named.insert(d.gpus.begin(), d.gpus.end());
  std::set<std::int32_t> present;
  for (const auto& g : reported.gpus) present.insert(g.index);
  for (std::int32_t i : named) {
    if (!present.count(i)) {
      return "spec.partitioning.nvidia.devices names GPU " + std::to_string(i) + ", which the node does not report (it has " +
             std::to_string(reported.gpus.size()) + " GPUs)";
    }
  }
  for (const auto& g : reported.gpus) {
    if (g.vendor && *g.vendor != api::GPUVendor::nvidia) continue;
    const gpu::GpuModel* model = g.catalog_id.empty() ? nullptr : in.catalog->find(g.catalog_id);
    if (model == nullptr) return gpu_text(g, nullptr) + ": the model is not in the catalog, so no layout can be planned";
    api::GPUMIGLayout layout;
    layout.index = g.index;
    gpu::ProfileCounts counts;
    if (!mig.layout.empty()) {
      gpu::LayoutTarget target;
      target.gpu_index = g.index;
      auto resolved = gpu::resolve_named_layout(mig.layout, *model, in.mig_parted, target);
      if (auto* e = std::get_if<gpu::PlanError>(&resolved)) return gpu_text(g, model) + ": " + e->message;
      const auto& nl = std::get<gpu::NamedLayout>(resolved);
      layout.enabled = nl.mig_enabled;
      counts = nl.counts;
    } else {
      const api::MIGDeviceLayout* entry = nullptr;
      for (const auto& d : mig.devices) {
        const bool names_it = std::find(d.gpus.begin(), d.gpus.end(), g.index) != d.gpus.end();
        if (names_it || (d.gpus.empty() && !named.count(g.index) && entry == nullptr)) entry = &d;
      }
      if (entry == nullptr) {
        out.push_back(layout);  // no entry covers it: MIG off
        continue;
      }
      layout.enabled = true;
      for (const auto& [profile, n] : entry->profiles) {
        if (n > 0) counts[profile] = n;
      }
    }
    if (layout.enabled) {
      if (!model->mig) return gpu_text(g, model) + ": " + gpu::short_name(*model) + " does not support MIG";
      auto fits = gpu::plan(*model, counts);
      if (auto* e = std::get_if<gpu::PlanError>(&fits)) return gpu_text(g, model) + ": " + e->message;
      layout.instances = instances_of(counts, *model);
    }
    out.push_back(std::move(layout));
  }
  return out;
}

}  // namespace

api::UpgradeStrategy effective_upgrade_strategy(const api::GPUPool& pool, const api::GPUPolicy* policy) {
  if (pool.spec.driver && pool.spec.driver->upgrade_strategy) return *pool.spec.driver->upgrade_strategy;
  if (policy && policy->spec.upgrade) return *policy->spec.upgrade;
  return api::UpgradeStrategy{};
}

DesiredSpec desired_gpunode_spec(const DesiredSpecInput& in) {
  DesiredSpec out;
  const api::GPUPool& pool = *in.pool;
  auto& s = out.spec;
  s.pool = pool.metadata.name;
  if (pool.spec.driver) {
    s.driver = *pool.spec.driver;
    s.driver->upgrade_strategy.reset();  // not a node's concern
  }
  s.sharing = pool.spec.sharing;
  s.monitoring = pool.spec.monitoring;
  const api::UpgradeStrategy upgrade = effective_upgrade_strategy(pool, in.policy);
  s.drain = upgrade.drain;
  s.cordon_on_failure = upgrade.cordon_on_failure;
  // The agent judges its GPUs' health by the policy's rules (gpu_health.h).
  if (in.policy) s.health = in.policy->spec.health;

  if (!pool.spec.partitioning) return out;
  const auto& part = *pool.spec.partitioning;
  const bool reported = in.reported != nullptr && !in.reported->gpus.empty();
  if (part.nvidia) {
    s.partitioning.strategy = part.nvidia->strategy;
    if (!reported) {
      out.waiting_for_report = true;
      return out;
    }
    auto layouts = mig_layouts(*part.nvidia, *in.reported, in);
    if (auto* problem = std::get_if<std::string>(&layouts)) {
      out.problem = *problem;
      return out;
    }
    s.partitioning.mig = std::get<std::vector<api::GPUMIGLayout>>(layouts);
    // The GPUNode's own rules (the single strategy's one profile per node, ...):
    // a spec the agent would refuse is not sent.
    api::GPUNode candidate;
    candidate.metadata.name = "node";
    candidate.spec = s;
    candidate.spec.node_name = "node";
    validation::SemanticContext ctx;
    ctx.catalog = in.catalog;
    ctx.mig_parted = in.mig_parted;
    if (const auto errors = validation::validate(candidate, ctx); !errors.empty()) {
      out.problem = errors.front().reason;
      s.partitioning.mig.clear();
      return out;
    }
  }
  if (part.amd) s.partitioning.amd = *part.amd;
  return out;
}

api::GPUNodeSpec unowned_gpunode_spec(const std::string& node_name) {
  api::GPUNodeSpec s;
  s.node_name = node_name;
  return s;
}

}  // namespace gpupool::pool
