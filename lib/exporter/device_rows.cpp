#include "device_rows.h"

namespace gpupool::exporter {

std::vector<DeviceRow> device_rows(const GpuSample& sample) {
  std::vector<DeviceRow> out;
  for (const auto& gpu : sample.inventory.gpus) {
    const backend::GpuMetrics* m = nullptr;
    for (const auto& x : sample.metrics) {
      if (x.index == gpu.index) m = &x;
    }
    out.push_back({&gpu, m, nullptr, nullptr, &sample.users.gpu_users(gpu.index)});
    for (const auto& inst : gpu.instances) {
      const backend::InstanceMetrics* im = nullptr;
      if (m) {
        for (const auto& x : m->instances) {
          if (x.gpu_instance_id == inst.gpu_instance_id) im = &x;
        }
      }
      out.push_back({&gpu, m, &inst, im, &sample.users.mig_users(gpu.index, inst.gpu_instance_id)});
    }
  }
  return out;
}

void for_each_user(const DeviceRow& row, const std::function<void(const podresources::PodRef*)>& fn) {
  if (row.users->empty()) {
    fn(nullptr);
    return;
  }
  for (const auto& u : *row.users) fn(&u);
}

}  // namespace gpupool::exporter
