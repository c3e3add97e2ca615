#include "gpupool/node/node_plan.h"

#include <algorithm>
#include <map>
#include <variant>

#include "gpupool/api/enum_names.h"

namespace gpupool::node {
namespace {

const backend::GpuInfo* find_gpu(const backend::Inventory& inv, int index) {
  for (const auto& g : inv.gpus) {
    if (g.index == index) return &g;
  }
  return nullptr;
}

gpu::Layout current_layout(const backend::GpuInfo& g) {
  gpu::Layout out;
  for (const auto& i : g.instances) out.push_back({i.profile, i.placement_start, i.placement_size});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  return out;
}

std::string gpu_name(const backend::GpuInfo& g, const gpu::GpuModel* model) {
  if (model != nullptr) return gpu::short_name(*model);
  return g.name.empty() ? "unknown model" : g.name;
}

using GpuPlan = std::variant<std::optional<MigAction>, PlanProblem>;

// Turns "the layout after the change" into destroy/create against what is there.
std::optional<MigAction> diff(const backend::GpuInfo& g, bool on, const gpu::Layout& target) {
  MigAction action;
  action.gpu_index = g.index;
  if (!on || g.mig.pending != backend::MigMode::enabled) action.set_mig_mode = true;
  std::vector<bool> kept(target.size(), false);
  if (on) {
    for (const auto& inst : g.instances) {
      bool keep = false;
      for (std::size_t t = 0; t < target.size(); ++t) {
        if (!kept[t] && target[t].profile == inst.profile && target[t].start == inst.placement_start) {
          kept[t] = keep = true;
          break;
        }
      }
      if (!keep) action.destroy.push_back(inst);
    }
  }
  for (std::size_t t = 0; t < target.size(); ++t) {
    if (!kept[t]) action.create.push_back(target[t]);
  }
  if (!action.set_mig_mode && action.destroy.empty() && action.create.empty()) return std::nullopt;
  return action;
}

GpuPlan plan_gpu(const api::GPUMIGLayout& want, const std::string& field, const backend::Inventory& inv,
                 const gpu::Catalog& catalog) {
  const backend::GpuInfo* g = find_gpu(inv, want.index);
  if (g == nullptr) {
    return PlanProblem{field, "GPU " + std::to_string(want.index) + " does not exist (the node has " +
                                  std::to_string(inv.gpus.size()) + " GPU" + (inv.gpus.size() == 1 ? "" : "s") + ")"};
  }
  const gpu::GpuModel* model = g->catalog_id.empty() ? catalog.find(g->name) : catalog.find(g->catalog_id);
  const bool on = g->mig.current == backend::MigMode::enabled;
  const bool pending_on = g->mig.pending == backend::MigMode::enabled;
  if (!want.enabled) {
    MigAction action;
    action.gpu_index = want.index;
    if (on) action.destroy = g->instances;
    if (on || pending_on) action.set_mig_mode = false;
    if (action.destroy.empty() && !action.set_mig_mode) return std::optional<MigAction>{};
    return std::optional<MigAction>{action};
  }
  if (!g->mig_capable || model == nullptr || !model->mig) {
    return PlanProblem{field, "GPU " + std::to_string(want.index) + " (" + gpu_name(*g, model) + ") does not support MIG"};
  }
  const bool all_placed = !want.instances.empty() &&
                          std::all_of(want.instances.begin(), want.instances.end(),
                                      [](const api::MIGInstance& i) { return i.placement.has_value(); });
  gpu::Layout target;
  if (all_placed) {
    for (const auto& i : want.instances) {
      const gpu::MigProfile* p = model->mig->profile(i.profile);
      if (p == nullptr) {
        return PlanProblem{field + ".instances", "GPU " + std::to_string(want.index) + " (" + gpu_name(*g, model) +
                                                     ") has no MIG profile " + i.profile};
      }
      target.push_back({i.profile, *i.placement, p->memory_slices});
    }
    std::sort(target.begin(), target.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
    if (auto r = gpu::check_layout(*model, target); std::holds_alternative<gpu::PlanError>(r)) {
      return PlanProblem{field + ".instances", "GPU " + std::to_string(want.index) + ": " + std::get<gpu::PlanError>(r).message};
    }
  } else {
    gpu::ProfileCounts counts;
    for (const auto& i : want.instances) ++counts[i.profile];
    const gpu::Layout current = on ? current_layout(*g) : gpu::Layout{};
    auto r = gpu::plan_change(*model, current, counts);
    if (const auto* err = std::get_if<gpu::PlanError>(&r)) {
      return PlanProblem{field + ".instances", "GPU " + std::to_string(want.index) + ": " + err->message};
    }
    target = std::get<gpu::LayoutChange>(r).result;
  }
  return diff(*g, on, target);
}

std::string join_instances(const gpu::Layout& l) {
  std::string out;
  for (const auto& i : l) out += (out.empty() ? "" : ", ") + i.profile + "@" + std::to_string(i.start);
  return out;
}

}  // namespace

NodePlan plan_node(const api::GPUNodeSpec& spec, const backend::Inventory& inv, const gpu::Catalog& catalog) {
  NodePlan plan;
  for (std::size_t i = 0; i < spec.partitioning.mig.size(); ++i) {
    const std::string field = "spec.partitioning.mig[" + std::to_string(i) + "]";
    GpuPlan r = plan_gpu(spec.partitioning.mig[i], field, inv, catalog);
    if (auto* p = std::get_if<PlanProblem>(&r)) {
      plan.problems.push_back(*p);
    } else if (auto& a = std::get<std::optional<MigAction>>(r)) {
      plan.mig.push_back(*a);
    }
  }
  if (spec.partitioning.amd) {
    const auto& want = *spec.partitioning.amd;
    for (const auto& g : inv.gpus) {
      if (g.vendor != gpu::Vendor::amd) continue;
      const gpu::GpuModel* model = catalog.find(g.catalog_id.empty() ? g.name : g.catalog_id);
      if (model == nullptr || !model->amd_partitions) {
        if (want.compute_partition || want.memory_partition) {
          plan.problems.push_back({"spec.partitioning.amd", "GPU " + std::to_string(g.index) + " (" + gpu_name(g, model) +
                                                                ") has no partition modes"});
        }
        continue;
      }
      AmdAction a;
      a.gpu_index = g.index;
      const std::string c = want.compute_partition ? std::string(api::to_string(*want.compute_partition)) : "";
      const std::string m = want.memory_partition ? std::string(api::to_string(*want.memory_partition)) : "";
      const std::string final_c = c.empty() ? g.compute_partition : c;
      const std::string final_m = m.empty() ? g.memory_partition : m;
      if (!model->amd_partitions->supports(final_c, final_m)) {
        plan.problems.push_back({"spec.partitioning.amd", "GPU " + std::to_string(g.index) + " (" + gpu_name(g, model) +
                                                              ") does not support " + final_c + " with " + final_m});
        continue;
      }
      if (!c.empty() && c != g.compute_partition) a.compute = c;
      if (!m.empty() && m != g.memory_partition) a.memory = m;
      if (!a.compute.empty() || !a.memory.empty()) plan.amd.push_back(a);
    }
  }
  if (!plan.problems.empty()) {
    plan.mig.clear();
    plan.amd.clear();
  }
  if (spec.driver && !inv.gpus.empty() && spec.driver->version != inv.driver_version) {
    if (spec.driver->installer.kind == api::InstallerKind::preinstalled) {
      plan.driver_problem = PlanProblem{"spec.driver.version", "the preinstalled driver is " + inv.driver_version +
                                                                   ", not " + spec.driver->version +
                                                                   " (installer kind preinstalled installs nothing)"};
    } else {
      plan.driver_install = spec.driver->version;
    }
  }
  return plan;
}

std::string NodePlan::describe(const std::string& current_driver) const {
  std::string out;
  auto add = [&](const std::string& s) { out += (out.empty() ? "" : "; ") + s; };
  for (const auto& a : mig) {
    std::string s = "GPU " + std::to_string(a.gpu_index) + ":";
    std::string parts;
    auto part = [&](const std::string& p) { parts += (parts.empty() ? " " : ", ") + p; };
    if (a.set_mig_mode && *a.set_mig_mode) part("enable MIG");
    if (!a.destroy.empty()) {
      gpu::Layout d;
      for (const auto& i : a.destroy) d.push_back({i.profile, i.placement_start, i.placement_size});
      part("destroy " + join_instances(d));
    }
    if (!a.create.empty()) part("create " + join_instances(a.create));
    if (a.set_mig_mode && !*a.set_mig_mode) part("disable MIG");
    add(s + parts);
  }
  for (const auto& a : amd) {
    add("GPU " + std::to_string(a.gpu_index) + ": partition " + (a.compute.empty() ? "" : a.compute) +
        (a.compute.empty() || a.memory.empty() ? "" : "/") + a.memory);
  }
  if (driver_install) add("driver " + current_driver + " -> " + *driver_install);
  return out;
}

}  // namespace gpupool::node
