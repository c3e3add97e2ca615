// Completes the -q -x inventory's MIG instances from mig -lgi, -lci and -L,
// and --query-gpu metrics with the memory of each MIG instance.
#include <algorithm>
#include <map>

#include "gpupool/backend/nvidia_smi_parse.h"

namespace gpupool::backend::nvsmi {

void merge_mig_tables(Inventory& inventory, const std::vector<GpuInstanceRow>& gpu_instances,
                      const std::vector<ComputeInstanceRow>& compute_instances,
                      const std::vector<XmlMigDevice>& mig_devices, const std::vector<ListedGpu>& listed,
                      const gpu::Catalog& catalog) {
  for (GpuInfo& gpu : inventory.gpus) {
    std::vector<MigInstance> instances;
    const gpu::GpuModel* model = gpu.catalog_id.empty() ? nullptr : catalog.find(gpu.catalog_id);
    for (const GpuInstanceRow& row : gpu_instances) {
      if (row.gpu != gpu.index) continue;
      MigInstance instance;
      instance.profile = row.profile;
      if (model != nullptr && model->mig) {
        for (const auto& profile : model->mig->profiles) {
          if (profile.profile_id == row.profile_id) instance.profile = profile.name;
        }
      }
      instance.profile_id = row.profile_id;
      instance.placement_start = row.placement_start;
      instance.placement_size = row.placement_size;
      instance.gpu_instance_id = row.instance_id;
      for (const ComputeInstanceRow& ci : compute_instances) {
        if (ci.gpu == gpu.index && ci.gpu_instance_id == row.instance_id &&
            (instance.compute_instance_id < 0 || ci.instance_id < instance.compute_instance_id)) {
          instance.compute_instance_id = ci.instance_id;
        }
      }
      // The -q -x device of this GPU instance (its lowest compute instance)
      // and, through its index, the -L line with the MIG UUID.
      const XmlMigDevice* device = nullptr;
      for (const XmlMigDevice& d : mig_devices) {
        if (d.gpu_index != gpu.index || d.gpu_instance_id != row.instance_id) continue;
        if (device == nullptr || (d.compute_instance_id >= 0 && d.compute_instance_id < device->compute_instance_id)) device = &d;
      }
      if (device != nullptr) {
        if (instance.compute_instance_id < 0) instance.compute_instance_id = device->compute_instance_id;
        instance.memory_mib = device->memory_mib;
        for (const ListedGpu& l : listed) {
          if (l.index != gpu.index) continue;
          for (const ListedMigDevice& m : l.mig_devices) {
            if (m.device_index == device->device_index) instance.uuid = m.uuid;
          }
        }
      }
      instances.push_back(std::move(instance));
    }
    if (instances.empty()) continue;
    std::sort(instances.begin(), instances.end(), [](const MigInstance& a, const MigInstance& b) {
      return a.placement_start != b.placement_start ? a.placement_start < b.placement_start
                                                    : a.gpu_instance_id < b.gpu_instance_id;
    });
    gpu.instances = std::move(instances);
  }
}

void merge_mig_device_memory(std::vector<GpuMetrics>& metrics, const std::vector<XmlMigDevice>& mig_devices) {
  for (GpuMetrics& gpu : metrics) {
    std::map<int, const XmlMigDevice*> first;  // GI id -> its device with the lowest CI id
    for (const XmlMigDevice& d : mig_devices) {
      if (d.gpu_index != gpu.index || d.gpu_instance_id < 0) continue;
      const XmlMigDevice*& kept = first[d.gpu_instance_id];
      if (kept == nullptr || (d.compute_instance_id >= 0 && d.compute_instance_id < kept->compute_instance_id)) kept = &d;
    }
    if (first.empty()) continue;
    gpu.instances.clear();
    for (const auto& [gi, device] : first) {
      InstanceMetrics instance;
      instance.gpu_instance_id = gi;
      if (device->memory_mib > 0) instance.memory_total_mib = device->memory_mib;
      instance.memory_used_mib = device->memory_used_mib;
      instance.memory_free_mib = device->memory_free_mib;
      gpu.instances.push_back(instance);
    }
  }
}

}  // namespace gpupool::backend::nvsmi
