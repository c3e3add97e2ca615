// AMD device-metrics-exporter's names and labels for AMD GPUs (lower case, as
// it exposes them), so its dashboards keep working. Each partition amd-smi
// reports is a GPU of its own (backend.h), with its partition modes.
#include <string>

#include "device_rows.h"
#include "neutral_families.h"

namespace gpupool::exporter {
namespace {

const std::vector<std::string> kAmdLabels = {"gpu_id",           "gpu_uuid",  "card_model",
                                             "hostname",         "gpu_partition_id",
                                             "gpu_compute_partition_type", "gpu_memory_partition_type",
                                             "driver_version",   "container", "namespace", "pod"};

template <typename T>
void emit(FamilySet& out, const GpuSample& s, const DeviceRow& row, const std::string& name, const std::string& help,
          const std::optional<T>& value, double scale = 1.0, const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  if (!value) return;
  std::vector<std::string> names = kAmdLabels;
  for (const auto& [k, v] : extra) names.push_back(k);
  for_each_user(row, [&](const podresources::PodRef* u) {
    const auto& g = *row.gpu;
    std::vector<std::string> values = {std::to_string(g.index), g.uuid, g.name, s.hostname, "0", g.compute_partition,
                                       g.memory_partition, s.inventory.driver_version, u ? u->container : "",
                                       u ? u->namespace_ : "", u ? u->pod : ""};
    for (const auto& [k, v] : extra) values.push_back(v);
    out.gauge(name, help, names, std::move(values), static_cast<double>(*value) * scale);
  });
}

}  // namespace

void add_amd_families(const GpuSample& s, FamilySet& out) {
  for (const auto& row : device_rows(s)) {
    if (row.gpu->vendor != gpu::Vendor::amd || row.instance || !row.metrics) continue;
    const auto& m = *row.metrics;
    emit(out, s, row, "gpu_gfx_activity", "Graphics engine activity (in %).", m.utilization_percent);
    emit(out, s, row, "gpu_used_vram", "Used VRAM (in MB).", m.memory_used_mib);
    emit(out, s, row, "gpu_free_vram", "Free VRAM (in MB).", m.memory_free_mib);
    emit(out, s, row, "gpu_total_vram", "Total VRAM (in MB).", m.memory_total_mib);
    emit(out, s, row, "gpu_junction_temperature", "Junction (hotspot) temperature (in C).", m.temperature_celsius);
    emit(out, s, row, "gpu_power_usage", "Power usage (in W).", m.power_watts);
    emit(out, s, row, "gpu_energy_consumed", "Energy consumed (in uJ).", m.energy_millijoules, 1000.0);
    emit(out, s, row, "gpu_clock", "Clock speed (in MHz), by clock type.", m.sm_clock_mhz, 1.0,
         {{"clock_type", "GPU_CLOCK_TYPE_SYSTEM"}});
    emit(out, s, row, "gpu_clock", "Clock speed (in MHz), by clock type.", m.memory_clock_mhz, 1.0,
         {{"clock_type", "GPU_CLOCK_TYPE_MEMORY"}});
    emit(out, s, row, "gpu_ecc_correct_total", "Correctable ECC errors.", m.ecc_corrected_total);
    emit(out, s, row, "gpu_ecc_uncorrect_total", "Uncorrectable ECC errors.", m.ecc_uncorrected_total);
  }
}

}  // namespace gpupool::exporter
