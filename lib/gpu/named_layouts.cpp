// Named layouts: the built-in names, and dispatch to a mig-parted file's configs.
#include "gpupool/gpu/named_layouts.h"

#include <algorithm>

#include "gpupool/gpu/mig_profile_name.h"
#include "named_layouts_internal.h"

namespace gpupool::gpu {
namespace {

bool is_plain(const MigProfile& p) {
  const auto parsed = parse_mig_profile_name(p.name);
  const auto* name = std::get_if<MigProfileName>(&parsed);
  return name != nullptr && name->is_plain();
}

// The smallest plain profile (no +me, +gfx, -me, ...) with `compute` slices.
const MigProfile* smallest_with(const MigCapability& mig, int compute) {
  const MigProfile* best = nullptr;
  for (const auto& p : mig.profiles) {
    if (p.compute_slices != compute || !is_plain(p)) continue;
    if (best == nullptr || p.memory_slices < best->memory_slices) best = &p;
  }
  return best;
}

// `written` as the model names it, or in the form of NVIDIA's config names
// ("1g.24gb.gfx" for 1g.24gb+gfx).
const MigProfile* profile_by_config_name(const MigCapability& mig, std::string_view written) {
  if (const MigProfile* p = mig.profile(written)) return p;
  for (const auto& p : mig.profiles) {
    std::string dotted = p.name;
    std::replace(dotted.begin(), dotted.end(), '+', '.');
    if (dotted == written) return &p;
  }
  return nullptr;
}

std::variant<NamedLayout, PlanError> all_of_profile(const std::string& label, const GpuModel& model,
                                                    std::string_view written) {
  const MigProfile* p = profile_by_config_name(*model.mig, written);
  if (p == nullptr) return PlanError{label + short_name(model) + " has no profile " + std::string(written)};
  // As many as fit: count down from the maximum until a placement exists.
  for (int n = p->max_count; n >= 1; --n) {
    ProfileCounts counts{{p->name, n}};
    if (std::holds_alternative<Layout>(plan(model, counts))) return NamedLayout{true, counts};
  }
  return PlanError{label + "no instance of " + p->name + " fits " + short_name(model)};
}

std::variant<NamedLayout, PlanError> balanced(const std::string& label, const GpuModel& model) {
  ProfileCounts counts;
  const MigProfile* one = smallest_with(*model.mig, 1);
  const MigProfile* two = smallest_with(*model.mig, 2);
  const MigProfile* three = model.mig->compute_slices >= 7 ? smallest_with(*model.mig, 3) : nullptr;
  if (one == nullptr || two == nullptr) return PlanError{label + "not defined for " + short_name(model)};
  counts[one->name] = 2;
  counts[two->name] = 1;
  if (three != nullptr) counts[three->name] = 1;
  return NamedLayout{true, counts};
}

}  // namespace

bool is_layout_name(std::string_view name, const MigPartedConfig* parted) {
  if (parted != nullptr) {
    const std::string key(name);
    if (parted->configs.count(key) > 0 || parted->unreadable.count(key) > 0) return true;
  }
  return name == "all-disabled" || name == "all-enabled" || name == "all-balanced" ||
         (name.rfind("all-", 0) == 0 && name.size() > 4);
}

std::variant<NamedLayout, PlanError> resolve_named_layout(std::string_view name, const GpuModel& model,
                                                          const MigPartedConfig* parted, const LayoutTarget& target) {
  const std::string key(name);
  const std::string label = key + ": ";
  if (parted != nullptr) {
    if (auto it = parted->configs.find(key); it != parted->configs.end()) {
      return detail::resolve_parted_config(key, it->second, model, target);
    }
    if (auto it = parted->unreadable.find(key); it != parted->unreadable.end()) {
      return PlanError{label + "the mig-parted config cannot be read: " + it->second.message};
    }
  }
  if (name == "all-disabled") return NamedLayout{false, {}};
  if (!model.mig) return PlanError{label + short_name(model) + " does not support MIG"};
  if (name == "all-enabled") return NamedLayout{true, {}};
  if (name == "all-balanced") return balanced(label, model);
  if (name.rfind("all-", 0) == 0 && name.size() > 4) return all_of_profile(label, model, name.substr(4));
  return PlanError{label + "unknown layout name"};
}

}  // namespace gpupool::gpu
