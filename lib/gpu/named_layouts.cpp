#include "gpupool/gpu/named_layouts.h"

#include <algorithm>

namespace gpupool::gpu {
namespace {

constexpr std::uint16_t kNvidiaVendorId = 0x10DE;

bool filter_admits(const MigPartedEntry& entry, const GpuModel& model) {
  if (entry.device_filter.empty()) return true;
  return std::any_of(entry.device_filter.begin(), entry.device_filter.end(), [&](const MigPartedDeviceFilter& f) {
    return f.vendor_id == kNvidiaVendorId &&
           std::find(model.pci_device_ids.begin(), model.pci_device_ids.end(), f.device_id) !=
               model.pci_device_ids.end();
  });
}

bool covers_gpu0(const MigPartedEntry& entry) {
  return entry.all_devices || std::find(entry.devices.begin(), entry.devices.end(), 0) != entry.devices.end();
}

// The smallest profile with `compute` slices and no media extensions.
const MigProfile* smallest_with(const MigCapability& mig, int compute) {
  const MigProfile* best = nullptr;
  for (const auto& p : mig.profiles) {
    if (p.compute_slices != compute || p.name.find('+') != std::string::npos) continue;
    if (best == nullptr || p.memory_slices < best->memory_slices) best = &p;
  }
  return best;
}

}  // namespace

bool is_layout_name(std::string_view name, const MigPartedConfig* parted) {
  if (parted != nullptr && parted->configs.count(std::string(name)) > 0) return true;
  return name == "all-disabled" || name == "all-enabled" || name == "all-balanced" ||
         (name.rfind("all-", 0) == 0 && name.size() > 4);
}

std::variant<NamedLayout, PlanError> resolve_named_layout(std::string_view name, const GpuModel& model,
                                                          const MigPartedConfig* parted) {
  const std::string label = std::string(name) + ": ";
  if (parted != nullptr) {
    auto it = parted->configs.find(std::string(name));
    if (it != parted->configs.end()) {
      for (const auto& entry : it->second) {
        if (!covers_gpu0(entry) || !filter_admits(entry, model)) continue;
        return NamedLayout{entry.mig_enabled, ProfileCounts(entry.mig_devices.begin(), entry.mig_devices.end())};
      }
      return PlanError{label + "no entry of this mig-parted config applies to " + short_name(model)};
    }
  }
  if (name == "all-disabled") return NamedLayout{false, {}};
  if (!model.mig) return PlanError{label + short_name(model) + " does not support MIG"};
  if (name == "all-enabled") return NamedLayout{true, {}};
  if (name == "all-balanced") {
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
  if (name.rfind("all-", 0) == 0) {
    std::string profile(name.substr(4));
    const MigProfile* p = model.mig->profile(profile);
    if (p == nullptr) return PlanError{label + short_name(model) + " has no profile " + profile};
    // As many as fit: count down from the maximum until a placement exists.
    for (int n = p->max_count; n >= 1; --n) {
      ProfileCounts counts{{profile, n}};
      if (std::holds_alternative<Layout>(plan(model, counts))) return NamedLayout{true, counts};
    }
    return PlanError{label + "no instance of " + profile + " fits " + short_name(model)};
  }
  return PlanError{label + "unknown layout name"};
}

}  // namespace gpupool::gpu
