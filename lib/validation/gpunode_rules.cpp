// GPUNode rules: named after its node, MIG instances of known profiles, the
// shared sharing/monitoring/driver rules.
#include <algorithm>
#include <set>
#include <type_traits>
#include <variant>

#include "gpupool/gpu/mig_planner.h"

#include "common_rules.h"
#include "gpupool/validation/semantic.h"

namespace gpupool::validation {
namespace {

// Where the agent has reported a GPU's model, the wanted instances must fit
// it: exactly as placed when every placement is given, else somewhere.
void check_layouts_against_status(const api::GPUNode& node, const gpu::Catalog& catalog, api::FieldErrors& errors) {
  if (!node.status) return;
  for (std::size_t g = 0; g < node.spec.partitioning.mig.size(); ++g) {
    const auto& wanted = node.spec.partitioning.mig[g];
    if (!wanted.enabled || wanted.instances.empty()) continue;
    const gpu::GpuModel* model = nullptr;
    for (const auto& reported : node.status->gpus) {
      if (reported.index != wanted.index) continue;
      model = catalog.find(reported.catalog_id.empty() ? reported.model : reported.catalog_id);
    }
    if (model == nullptr || !model->mig) continue;
    gpu::Layout layout;
    gpu::ProfileCounts counts;
    bool all_placed = true;
    for (const auto& inst : wanted.instances) {
      const gpu::MigProfile* p = model->mig->profile(inst.profile);
      if (p == nullptr) {
        all_placed = false;  // counted below; plan() names the unknown profile
      } else if (inst.placement) {
        layout.push_back({inst.profile, *inst.placement, p->memory_slices});
      } else {
        all_placed = false;
      }
      ++counts[inst.profile];
    }
    std::sort(layout.begin(), layout.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
    auto result = all_placed ? gpu::check_layout(*model, layout)
                             : gpu::PlanResult<std::monostate>(std::visit(
                                   [](const auto& r) -> gpu::PlanResult<std::monostate> {
                                     if constexpr (std::is_same_v<std::decay_t<decltype(r)>, gpu::PlanError>) {
                                       return r;
                                     } else {
                                       return std::monostate{};
                                     }
                                   },
                                   gpu::plan(*model, counts)));
    if (const auto* err = std::get_if<gpu::PlanError>(&result)) {
      errors.push_back({api::FieldPath("spec").field("partitioning").field("mig").index(g).field("instances").str(),
                        "Invalid value: " + err->message + " (GPU " + std::to_string(wanted.index) + " is a " +
                            model->display_name + ")"});
    }
  }
}

}  // namespace

api::FieldErrors validate(const api::GPUNode& node, const SemanticContext& ctx) {
  api::FieldErrors errors;
  api::FieldPath sp("spec");
  const auto& spec = node.spec;
  if (spec.node_name != node.metadata.name) {
    errors.push_back({sp.field("nodeName").str(), "Invalid value: \"" + spec.node_name +
                                                      "\": nodeName must equal metadata.name (\"" +
                                                      node.metadata.name + "\")"});
  }
  if (spec.driver) {
    check_installer(spec.driver->installer, sp.field("driver").field("installer"), errors);
    if (spec.driver->upgrade_strategy) {
      errors.push_back({sp.field("driver").field("upgradeStrategy").str(),
                        "Forbidden: a GPUNode carries no upgrade strategy (the pool's rollout decides)"});
    }
  }
  std::set<std::string> profiles;
  for (const auto& p : ctx.catalog->all_mig_profile_names()) profiles.insert(p);
  for (std::size_t g = 0; g < spec.partitioning.mig.size(); ++g) {
    const auto& gpu = spec.partitioning.mig[g];
    api::FieldPath gp = sp.field("partitioning").field("mig").index(g);
    if (!gpu.enabled && !gpu.instances.empty()) {
      errors.push_back({gp.field("instances").str(), "Forbidden: instances need enabled: true"});
    }
    for (std::size_t i = 0; i < gpu.instances.size(); ++i) {
      const auto& inst = gpu.instances[i];
      if (profiles.count(inst.profile) == 0) {
        errors.push_back({gp.field("instances").index(i).field("profile").str(),
                          "Unsupported value: \"" + inst.profile + "\": no GPU model of the catalog has this profile"});
      }
    }
  }
  if (spec.partitioning.strategy == api::MIGStrategy::single) {
    // The device plugin's single strategy advertises every MIG device as
    // nvidia.com/gpu: they must all be alike.
    std::set<std::string> used;
    for (const auto& gpu : spec.partitioning.mig) {
      for (const auto& inst : gpu.instances) used.insert(inst.profile);
    }
    if (used.size() > 1) {
      std::string list;
      for (const auto& p : used) list += (list.empty() ? "" : ", ") + p;
      errors.push_back({sp.field("partitioning").field("strategy").str(),
                        "Invalid value: \"single\": the single MIG strategy needs one profile on the whole node, "
                        "the layout has " + list + " (use mixed)"});
    }
  }
  check_drain(spec.drain, sp.field("drain"), errors);
  check_layouts_against_status(node, *ctx.catalog, errors);
  if (node.status) {
    for (std::size_t i = 0; i < node.status->interconnect.size(); ++i) {
      const auto& link = node.status->interconnect[i];
      if (link.to <= link.from) {
        errors.push_back({api::FieldPath("status").field("interconnect").index(i).field("to").str(),
                          "Invalid value: " + std::to_string(link.to) + ": to must be greater than from"});
      }
    }
  }
  check_sharing(spec.sharing, sp.field("sharing"), errors);
  check_monitoring(spec.monitoring, sp.field("monitoring"), errors);
  if (spec.health) check_health_rules(*spec.health, sp.field("health"), errors);
  return errors;
}

}  // namespace gpupool::validation
