// GPUPool rules: the CRD's CEL invariants, plus partitioning and sharing
// judged against the GPU models the pool may select.
#include <algorithm>
#include <map>
#include <set>

#include "common_rules.h"
#include "gpupool/gpu/mig_planner.h"
#include "gpupool/gpu/named_layouts.h"
#include "gpupool/validation/semantic.h"

namespace gpupool::validation {
namespace {

using api::FieldPath;

void add(api::FieldErrors& errors, const FieldPath& path, std::string reason) {
  errors.push_back({path.str(), std::move(reason)});
}

// The models a MIG rule must hold for: the pinned ones, or every MIG-capable
// model of the catalog (then a rule needs to hold for at least one).
struct Candidates {
  std::vector<const gpu::GpuModel*> models;
  bool pinned = false;
};

Candidates mig_candidates(const std::vector<const gpu::GpuModel*>& pinned, const gpu::Catalog& catalog) {
  if (!pinned.empty()) return {pinned, true};
  Candidates c;
  for (const auto& m : catalog.models()) {
    if (m.mig) c.models.push_back(&m);
  }
  return c;
}

void check_device_layouts(const api::MIGPartitioning& mig, const Candidates& candidates, const FieldPath& path,
                          api::FieldErrors& errors) {
  // Each GPU index in one entry only; one entry at most without gpus.
  std::map<int, std::size_t> owner;
  int catch_all = -1;
  for (std::size_t d = 0; d < mig.devices.size(); ++d) {
    const auto& dev = mig.devices[d];
    FieldPath dp = path.field("devices").index(d);
    if (dev.gpus.empty()) {
      if (catch_all >= 0) {
        add(errors, dp.field("gpus"),
            "Required value: only one entry may leave gpus empty (devices[" + std::to_string(catch_all) +
                "] already covers every other GPU)");
      }
      catch_all = static_cast<int>(d);
    }
    for (std::size_t g = 0; g < dev.gpus.size(); ++g) {
      auto [it, fresh] = owner.emplace(dev.gpus[g], d);
      if (!fresh) {
        add(errors, dp.field("gpus").index(g),
            "Duplicate value: " + std::to_string(dev.gpus[g]) + ": GPU already laid out by devices[" +
                std::to_string(it->second) + "]");
      }
    }
    if (mig.strategy == api::MIGStrategy::single && dev.profiles.size() > 1) {
      add(errors, dp.field("profiles"),
          "Invalid value: strategy single gives every GPU one profile (" + std::to_string(dev.profiles.size()) +
              " given); use strategy mixed for a mix");
    }
    if (dev.profiles.empty()) continue;

    gpu::ProfileCounts wanted(dev.profiles.begin(), dev.profiles.end());
    FieldPath pp = dp.field("profiles");
    bool any_fits = false;
    std::vector<std::string> reasons;
    for (const gpu::GpuModel* m : candidates.models) {
      // Profiles unknown to this model: one error per profile for a pinned
      // model (so the path names it), a reason otherwise.
      std::vector<std::string> unknown;
      for (const auto& [profile, count] : wanted) {
        if (m->mig && m->mig->profile(profile) == nullptr) unknown.push_back(profile);
      }
      if (!m->mig) {
        if (candidates.pinned) add(errors, pp, "Invalid value: " + gpu::short_name(*m) + " does not support MIG");
        continue;
      }
      if (!unknown.empty()) {
        if (candidates.pinned) {
          std::string known;
          for (const auto& p : m->mig->profiles) known += (known.empty() ? "" : ", ") + p.name;
          for (const auto& u : unknown) {
            add(errors, pp.key(u),
                "Unsupported value: \"" + u + "\": unknown profile for " + gpu::short_name(*m) + " (known: " + known + ")");
          }
        }
        continue;
      }
      auto planned = gpu::plan(*m, wanted);
      if (const auto* err = std::get_if<gpu::PlanError>(&planned)) {
        if (candidates.pinned) add(errors, pp, "Invalid value: " + err->message);
        reasons.push_back(err->message);
        continue;
      }
      any_fits = true;
    }
    if (!candidates.pinned && !any_fits) {
      std::string why = reasons.empty() ? "no GPU model of the catalog has all of these profiles" : reasons.front();
      add(errors, pp, "Invalid value: " + gpu::format_profile_counts(wanted) + " fits no GPU model: " + why);
    }
  }
}

void check_named_layout(const api::MIGPartitioning& mig, const Candidates& candidates, const SemanticContext& ctx,
                        const FieldPath& path, api::FieldErrors& errors) {
  FieldPath lp = path.field("layout");
  if (!gpu::is_layout_name(mig.layout, ctx.mig_parted)) {
    add(errors, lp,
        "Unsupported value: \"" + mig.layout +
            "\": not a built-in layout (all-disabled, all-enabled, all-balanced, all-<profile>)" +
            (ctx.mig_parted ? " nor a config of the mig-parted file" : " (pass --mig-parted-config for your own)"));
    return;
  }
  bool any = false;
  std::string first_reason;
  for (const gpu::GpuModel* m : candidates.models) {
    auto resolved = gpu::resolve_named_layout(mig.layout, *m, ctx.mig_parted);
    if (const auto* err = std::get_if<gpu::PlanError>(&resolved)) {
      if (candidates.pinned) add(errors, lp, "Invalid value: " + err->message);
      if (first_reason.empty()) first_reason = err->message;
      continue;
    }
    const auto& layout = std::get<gpu::NamedLayout>(resolved);
    if (!layout.counts.empty()) {
      auto planned = gpu::plan(*m, layout.counts);
      if (const auto* err = std::get_if<gpu::PlanError>(&planned)) {
        if (candidates.pinned) add(errors, lp, "Invalid value: " + mig.layout + ": " + err->message);
        if (first_reason.empty()) first_reason = err->message;
        continue;
      }
    }
    any = true;
  }
  if (!candidates.pinned && !any) add(errors, lp, "Invalid value: fits no GPU model: " + first_reason);
}

void check_amd(const api::AMDPartitioning& amd, const std::vector<const gpu::GpuModel*>& pinned,
               const FieldPath& path, api::FieldErrors& errors) {
  std::string compute = amd.compute_partition ? std::string(api::to_string(*amd.compute_partition)) : "";
  std::string memory = amd.memory_partition ? std::string(api::to_string(*amd.memory_partition)) : "";
  for (const gpu::GpuModel* m : pinned) {
    if (m->vendor != gpu::Vendor::amd) continue;  // reported by the vendor check
    if (!m->amd_partitions) {
      add(errors, path, "Invalid value: " + m->display_name + " has no partition modes");
      continue;
    }
    const auto& modes = *m->amd_partitions;
    auto listed = [](const std::vector<std::string>& v, const std::string& x) {
      return x.empty() || std::find(v.begin(), v.end(), x) != v.end();
    };
    if (!listed(modes.compute, compute) || !listed(modes.memory, memory) ||
        (!compute.empty() && !memory.empty() && !modes.supports(compute, memory))) {
      std::string pairs;
      for (const auto& [c, mm] : modes.combinations) pairs += (pairs.empty() ? "" : ", ") + c + "+" + mm;
      add(errors, path,
          "Invalid value: " + (compute.empty() ? "" : compute) + (compute.empty() || memory.empty() ? "" : "+") +
              memory + " is not supported by " + m->display_name + " (supported: " + pairs + ")");
    }
  }
}

}  // namespace

api::FieldErrors validate(const api::GPUPool& pool, const SemanticContext& ctx) {
  api::FieldErrors errors;
  const auto& spec = pool.spec;
  FieldPath sp("spec");
  check_selector(spec.node_selector, sp.field("nodeSelector"), errors);
  auto pinned = pinned_models(spec.node_selector, *ctx.catalog, sp.field("nodeSelector"), errors);

  // Vendor against the pinned models.
  for (const gpu::GpuModel* m : pinned) {
    bool nvidia = m->vendor == gpu::Vendor::nvidia;
    if ((spec.vendor == api::Vendor::nvidia && !nvidia) || (spec.vendor == api::Vendor::amd && nvidia)) {
      add(errors, sp.field("vendor"),
          "Invalid value: \"" + std::string(api::to_string(spec.vendor)) + "\": the node selector pins " +
              m->display_name);
    }
  }
  bool amd_pool = spec.vendor == api::Vendor::amd ||
                  (!pinned.empty() && std::all_of(pinned.begin(), pinned.end(), [](const gpu::GpuModel* m) {
                    return m->vendor == gpu::Vendor::amd;
                  }));

  if (spec.driver) {
    FieldPath dp = sp.field("driver");
    check_installer(spec.driver->installer, dp.field("installer"), errors);
    if (spec.driver->upgrade_strategy) {
      check_upgrade_strategy(*spec.driver->upgrade_strategy, dp.field("upgradeStrategy"), errors);
    }
  }

  if (spec.partitioning) {
    FieldPath pp = sp.field("partitioning");
    const auto& part = *spec.partitioning;
    if (part.nvidia && part.amd) add(errors, pp, "Invalid value: nvidia and amd partitioning are mutually exclusive");
    if (part.amd && spec.vendor == api::Vendor::nvidia) {
      add(errors, pp.field("amd"), "Forbidden: amd partitioning is not allowed when vendor is nvidia");
    }
    if (part.nvidia && spec.vendor == api::Vendor::amd) {
      add(errors, pp.field("nvidia"), "Forbidden: nvidia partitioning is not allowed when vendor is amd");
    }
    if (part.nvidia) {
      FieldPath np = pp.field("nvidia");
      const auto& mig = *part.nvidia;
      if (mig.layout.empty() == mig.devices.empty()) {
        add(errors, np, "Invalid value: exactly one of layout or devices must be set");
      } else {
        Candidates candidates = mig_candidates(pinned, *ctx.catalog);
        if (!mig.layout.empty()) check_named_layout(mig, candidates, ctx, np, errors);
        if (!mig.devices.empty()) check_device_layouts(mig, candidates, np, errors);
      }
    }
    if (part.amd) check_amd(*part.amd, pinned, pp.field("amd"), errors);
  }

  check_sharing(spec.sharing, sp.field("sharing"), errors);
  if (spec.sharing.mode == api::SharingMode::mps && amd_pool) {
    add(errors, sp.field("sharing").field("mode"), "Unsupported value: \"mps\": MPS is NVIDIA-only; this pool is AMD");
  }
  check_monitoring(spec.monitoring, sp.field("monitoring"), errors);
  check_label_map(spec.node_labels, sp.field("nodeLabels"), errors);

  if (spec.policy_ref && ctx.policy_names && ctx.policy_names->count(spec.policy_ref->name) == 0) {
    add(errors, sp.field("policyRef").field("name"),
        "Not found: \"" + spec.policy_ref->name + "\": no GPUPolicy of that name among the given objects");
  }
  return errors;
}

}  // namespace gpupool::validation
