// extended_resources: what the NVIDIA device plugin (internal/rm/device_map.go)
// and the AMD device plugin would advertise for an inventory.
#include <algorithm>

#include "gpupool/node/node_labels.h"

namespace gpupool::node {
namespace {

using Resources = std::map<std::string, std::int64_t>;

bool mig_on(const backend::GpuInfo& g) {
  return g.vendor == gpu::Vendor::nvidia && g.mig.current == backend::MigMode::enabled;
}

// The devices of each NVIDIA resource before sharing (buildDeviceMapFromConfigResources);
// empty when the plugin would refuse the configuration.
Resources nvidia_devices(const LabelInputs& in, const SharingConfig& sc) {
  const backend::Inventory& inv = *in.inventory;
  Resources out;
  const bool single = in.mig_strategy == api::MIGStrategy::single;
  std::vector<MigDeviceType> types = mig_device_types(inv, in.catalog);
  // mps.go getMPSOptions: "sharing using MPS is not supported for MIG devices".
  if (sc.mps && sc.replicas >= 2 && !types.empty()) return {};
  if (single && !single_strategy_problem(inv, in.catalog).empty()) return {};
  for (const backend::GpuInfo& g : inv.gpus) {
    if (g.vendor == gpu::Vendor::nvidia && !mig_on(g)) ++out["nvidia.com/gpu"];
  }
  for (const MigDeviceType& t : types) {
    out[single ? "nvidia.com/gpu" : "nvidia.com/mig-" + mig_device_name(t.profile)] += t.count;
  }
  return out;
}

}  // namespace

std::map<std::string, std::int64_t> extended_resources(const LabelInputs& in) {
  Resources out;
  if (in.inventory == nullptr) return out;
  const SharingConfig sc = sharing_config(in.sharing);
  // updateDeviceMapWithReplicas: every listed resource replicated, renamed
  // to <name>.shared when asked. MPS lists only nvidia.com/gpu.
  for (const auto& [name, count] : nvidia_devices(in, sc)) {
    const bool listed = sc.replicas >= 2 && (!sc.mps || name == "nvidia.com/gpu");
    if (!listed) {
      out[name] += count;
    } else {
      out[sc.renamed ? name + ".shared" : name] += count * sc.replicas;
    }
  }
  for (const backend::GpuInfo& g : in.inventory->gpus) {
    if (g.vendor == gpu::Vendor::amd) out["amd.com/gpu"] += amd_logical_gpus(g, catalog_model(g, in.catalog));
  }
  return out;
}

}  // namespace gpupool::node
