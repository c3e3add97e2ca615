// A sample seen device by device: each GPU, then each of its MIG instances,
// with their metrics and users. Internal to lib/exporter.
#pragma once

#include <functional>
#include <vector>

#include "gpupool/exporter/gpu_families.h"

namespace gpupool::exporter {

struct DeviceRow {
  const backend::GpuInfo* gpu = nullptr;
  const backend::GpuMetrics* metrics = nullptr;               // the GPU's; null when it reported none
  const backend::MigInstance* instance = nullptr;             // null: the whole GPU
  const backend::InstanceMetrics* instance_metrics = nullptr; // the instance's; null when none
  const std::vector<podresources::PodRef>* users = nullptr;   // never null; empty when nobody holds it
};

// In inventory order: a GPU's row, then its instances' rows.
std::vector<DeviceRow> device_rows(const GpuSample& sample);

// Calls `fn` once per user of the row, or once with nullptr when it has none.
void for_each_user(const DeviceRow& row, const std::function<void(const podresources::PodRef*)>& fn);

inline constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace gpupool::exporter
