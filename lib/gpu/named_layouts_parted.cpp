// A mig-parted config resolved for one GPU: which entry applies (devices,
// device-filter), then its profile names mapped onto the model's.
#include <algorithm>
#include <cstdio>

#include "gpupool/gpu/mig_profile_name.h"
#include "named_layouts_internal.h"

namespace gpupool::gpu::detail {
namespace {

constexpr std::uint16_t kNvidiaVendorId = 0x10DE;

std::string hex16(std::uint32_t id) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%04X", static_cast<unsigned>(id & 0xFFFF));
  return buf;
}

bool filter_admits(const MigPartedDeviceFilter& f, const GpuModel& model, const LayoutTarget& target) {
  if (f.vendor_id != kNvidiaVendorId) return false;
  const bool device = target.pci_device_id
                          ? *target.pci_device_id == f.device_id
                          : std::find(model.pci_device_ids.begin(), model.pci_device_ids.end(), f.device_id) !=
                                model.pci_device_ids.end();
  if (!device) return false;
  return !f.subsystem || (target.pci_subsystem_id && *target.pci_subsystem_id == *f.subsystem);
}

bool applies(const MigPartedEntry& entry, const GpuModel& model, const LayoutTarget& target) {
  const bool device = entry.all_devices ||
                      std::find(entry.devices.begin(), entry.devices.end(), target.gpu_index) != entry.devices.end();
  if (!device) return false;
  return entry.device_filter.empty() ||
         std::any_of(entry.device_filter.begin(), entry.device_filter.end(),
                     [&](const MigPartedDeviceFilter& f) { return filter_admits(f, model, target); });
}

// "GPU 0 (A100-SXM4-80GB)", "GPU 2 (RTX PRO 6000 Blackwell Server Edition, PCI 0x2BB5)"
std::string describe_target(const GpuModel& model, const LayoutTarget& target) {
  std::string out = "GPU " + std::to_string(target.gpu_index) + " (" + short_name(model);
  if (target.pci_device_id) out += ", PCI " + hex16(*target.pci_device_id);
  return out + ")";
}

const MigProfile* model_profile(const GpuModel& model, const MigProfileName& wanted) {
  for (const MigProfile& p : model.mig->profiles) {
    const auto parsed = parse_mig_profile_name(p.name);
    if (const auto* name = std::get_if<MigProfileName>(&parsed); name != nullptr && *name == wanted) return &p;
  }
  return nullptr;
}

}  // namespace

std::variant<NamedLayout, PlanError> resolve_parted_config(const std::string& name,
                                                           const std::vector<MigPartedEntry>& entries,
                                                           const GpuModel& model, const LayoutTarget& target) {
  const std::string label = name + ": ";
  // mig-parted applies the entries in order; the last that applies stays.
  std::size_t chosen = entries.size();
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (applies(entries[i], model, target)) chosen = i;
  }
  if (chosen == entries.size()) {
    return PlanError{label + "no entry of this mig-parted config applies to " + describe_target(model, target)};
  }
  const MigPartedEntry& entry = entries[chosen];
  const std::string where = "mig-configs." + name + "[" + std::to_string(chosen) + "].mig-devices";
  if (!entry.mig_enabled) return NamedLayout{false, {}};
  if (!model.mig) return PlanError{label + short_name(model) + " does not support MIG"};

  NamedLayout out{true, {}};
  for (const auto& [written, count] : entry.mig_devices) {
    if (count == 0) continue;
    const auto parsed = parse_mig_profile_name(written);
    const auto* profile_name = std::get_if<MigProfileName>(&parsed);
    if (profile_name == nullptr) {  // the reader admits none of these; kept for a hand-built config
      return PlanError{label + written + " is not a MIG profile name: " + std::get<std::string>(parsed)};
    }
    if (!profile_name->is_gpu_instance()) {
      return PlanError{label + written + " is a compute-instance profile (" +
                       std::to_string(profile_name->compute_slices) + " of the " +
                       std::to_string(profile_name->gpu_slices) +
                       " slices of a GPU instance); gpupool creates one compute instance per GPU instance (" + where +
                       ")"};
    }
    const MigProfile* p = model_profile(model, *profile_name);
    if (p == nullptr) return PlanError{label + short_name(model) + " has no profile " + written + " (" + where + ")"};
    out.counts[p->name] += count;
  }
  return out;
}

}  // namespace gpupool::gpu::detail
