// The NVIDIA devices as the device plugin and GFD see them: sharing, MIG
// device types, whether mig-strategy single can expose them.
#include <algorithm>
#include <iterator>

#include "gpupool/node/node_labels.h"

namespace gpupool::node {

std::string_view SharingConfig::strategy() const {
  // api/config/v1/sharing.go SharingStrategy(): MPS first, then time-slicing.
  if (replicas < 2) return "none";
  return mps ? "mps" : "time-slicing";
}

SharingConfig sharing_config(const api::Sharing& sharing) {
  SharingConfig out;
  switch (sharing.mode) {
    case api::SharingMode::time_slicing:
      if (sharing.time_slicing && sharing.time_slicing->replicas >= 2) {
        out.replicas = sharing.time_slicing->replicas;
        out.renamed = sharing.time_slicing->rename_resources;
      }
      break;
    case api::SharingMode::mps:
      if (sharing.mps && sharing.mps->replicas >= 2) {
        out.replicas = sharing.mps->replicas;
        out.mps = true;
      }
      break;
    case api::SharingMode::exclusive:
      break;
  }
  return out;
}

const gpu::GpuModel* catalog_model(const backend::GpuInfo& gpu, const gpu::Catalog* catalog) {
  if (catalog == nullptr) return nullptr;
  if (!gpu.catalog_id.empty()) {
    if (const gpu::GpuModel* m = catalog->find(gpu.catalog_id)) return m;
  }
  if (!gpu.name.empty()) {
    if (const gpu::GpuModel* m = catalog->find(gpu.name)) return m;
  }
  if (gpu.pci_device_id != 0) return catalog->find_by_pci_device_id(gpu.vendor, gpu.pci_device_id);
  return nullptr;
}

namespace {

bool mig_on(const backend::GpuInfo& g) {
  return g.vendor == gpu::Vendor::nvidia && g.mig.current == backend::MigMode::enabled;
}

// The device plugin and GFD enumerate compute instances (MIG devices); a
// GPU instance without one is not a device.
bool is_mig_device(const backend::MigInstance& m) { return m.compute_instance_id >= 0; }

}  // namespace

std::vector<MigDeviceType> mig_device_types(const backend::Inventory& inv, const gpu::Catalog* catalog) {
  std::vector<MigDeviceType> out;
  for (const backend::GpuInfo& g : inv.gpus) {
    if (!mig_on(g)) continue;
    for (const backend::MigInstance& m : g.instances) {
      if (!is_mig_device(m)) continue;
      auto it = std::find_if(out.begin(), out.end(), [&](const MigDeviceType& t) { return t.profile == m.profile; });
      if (it == out.end()) {
        MigDeviceType t;
        t.profile = m.profile;
        t.parent = &g;
        if (const gpu::GpuModel* model = catalog_model(g, catalog); model != nullptr && model->mig) {
          t.catalog_profile = model->mig->profile(m.profile);
        }
        // The size the GPU reports wins over the catalog's nominal one.
        t.memory_mib = m.memory_mib > 0 ? m.memory_mib : (t.catalog_profile ? t.catalog_profile->memory_mib : 0);
        out.push_back(t);
        it = std::prev(out.end());
      }
      ++it->count;
    }
  }
  return out;
}

// mig-strategy.go newMigStrategySingleLabeler and device_map.go
// assertAllMigDevicesAreValid(uniform=true), in GFD's order of checks.
std::string single_strategy_problem(const backend::Inventory& inv, const gpu::Catalog* catalog) {
  bool any_on = false, any_off = false, any_empty = false;
  for (const backend::GpuInfo& g : inv.gpus) {
    if (g.vendor != gpu::Vendor::nvidia) continue;
    if (!mig_on(g)) {
      any_off = true;
      continue;
    }
    any_on = true;
    if (std::none_of(g.instances.begin(), g.instances.end(), is_mig_device)) any_empty = true;
  }
  if (!any_on) return "";
  if (any_empty) return "at least one MIG device is enabled but empty";
  if (any_off) return "devices with MIG enabled and disable detected";
  std::vector<MigDeviceType> types = mig_device_types(inv, catalog);
  if (types.size() != 1) return "more than one MIG device type present on node";
  // GFD compares profile names; the device plugin compares the devices'
  // attributes, which differ between models sharing a profile name.
  for (const backend::GpuInfo& g : inv.gpus) {
    if (g.vendor == gpu::Vendor::nvidia && g.name != types.front().parent->name) {
      return "more than one MIG device type present on node";
    }
  }
  return "";
}

}  // namespace gpupool::node
