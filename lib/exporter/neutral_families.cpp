// gpupool_gpu_*: one label set for every series of a device, base units.
#include <string>

#include "device_rows.h"
#include "neutral_families.h"

namespace gpupool::exporter {
namespace {

const std::vector<std::string> kDeviceLabels = {"node",        "gpu",       "uuid", "model", "vendor", "gpu_instance_id",
                                                "mig_profile", "namespace", "pod",  "container", "tenant"};

std::string vendor_name(gpu::Vendor v) { return v == gpu::Vendor::amd ? "amd" : "nvidia"; }

std::vector<std::string> device_values(const GpuSample& s, const DeviceRow& row, const podresources::PodRef* user) {
  std::string tenant;
  if (user) {
    auto t = s.tenants.find(user->namespace_);
    tenant = t == s.tenants.end() ? user->namespace_ : t->second;
  }
  return {s.hostname,
          std::to_string(row.gpu->index),
          row.instance && !row.instance->uuid.empty() ? row.instance->uuid : row.gpu->uuid,
          row.gpu->name,
          vendor_name(row.gpu->vendor),
          row.instance ? std::to_string(row.instance->gpu_instance_id) : "",
          row.instance ? row.instance->profile : "",
          user ? user->namespace_ : "",
          user ? user->pod : "",
          user ? user->container : "",
          tenant};
}

// Adds one series per user of `row` when `value` is known.
template <typename T>
void per_user(FamilySet& out, const GpuSample& s, const DeviceRow& row, const std::string& name, const std::string& help,
              const std::optional<T>& value, double scale = 1.0, bool counter = false,
              const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  if (!value) return;
  std::vector<std::string> names = kDeviceLabels;
  for (const auto& [k, v] : extra) names.push_back(k);
  for_each_user(row, [&](const podresources::PodRef* u) {
    auto values = device_values(s, row, u);
    for (const auto& [k, v] : extra) values.push_back(v);
    out.add(name, counter ? metrics::MetricKind::Counter : metrics::MetricKind::Gauge, help, names, std::move(values),
            static_cast<double>(*value) * scale);
  });
}

}  // namespace

void add_neutral_families(const GpuSample& s, FamilySet& out) {
  const auto rows = device_rows(s);
  for (const auto& row : rows) {
    if (row.instance) continue;
    const auto& g = *row.gpu;
    out.gauge("gpupool_gpu_info", "The GPUs of the node (value 1).",
              {"node", "gpu", "uuid", "model", "vendor", "pci_bus_id", "driver_version", "compute_partition", "memory_partition"},
              {s.hostname, std::to_string(g.index), g.uuid, g.name, vendor_name(g.vendor), g.pci_bus_id, s.inventory.driver_version,
               g.compute_partition, g.memory_partition},
              1);
  }
  for (const auto& row : rows) {
    if (!row.instance) continue;
    const auto& i = *row.instance;
    out.gauge("gpupool_gpu_partition_info", "The MIG instances of the node's GPUs (value 1).",
              {"node", "gpu", "uuid", "gpu_instance_id", "mig_profile", "placement", "instance_uuid"},
              {s.hostname, std::to_string(row.gpu->index), row.gpu->uuid, std::to_string(i.gpu_instance_id), i.profile,
               std::to_string(i.placement_start), i.uuid},
              1);
  }
  for (const auto& row : rows) {
    const backend::GpuMetrics* m = row.metrics;
    const backend::InstanceMetrics* im = row.instance_metrics;
    if (row.instance) {
      if (!im) continue;
      const std::optional<double> util = im->utilization_percent;
      per_user(out, s, row, "gpupool_gpu_utilization_ratio",
               "Share of time the GPU (or MIG instance) ran work, 0 to 1.", util, 0.01);
      per_user(out, s, row, "gpupool_gpu_graphics_engine_active_ratio",
               "Share of time a graphics or compute engine of the MIG instance was active, 0 to 1.", im->graphics_engine_active);
      per_user(out, s, row, "gpupool_gpu_dram_active_ratio",
               "Share of cycles the memory interface of the MIG instance was busy, 0 to 1.", im->dram_active);
      per_user(out, s, row, "gpupool_gpu_memory_used_bytes", "Memory used on the GPU (or MIG instance), bytes.",
               im->memory_used_mib, kMiB);
      per_user(out, s, row, "gpupool_gpu_memory_free_bytes", "Memory free on the GPU (or MIG instance), bytes.",
               im->memory_free_mib, kMiB);
      per_user(out, s, row, "gpupool_gpu_memory_total_bytes", "Memory of the GPU (or MIG instance), bytes.",
               im->memory_total_mib, kMiB);
      continue;
    }
    if (!m) continue;
    per_user(out, s, row, "gpupool_gpu_utilization_ratio", "Share of time the GPU (or MIG instance) ran work, 0 to 1.",
             m->utilization_percent, 0.01);
    per_user(out, s, row, "gpupool_gpu_memory_used_bytes", "Memory used on the GPU (or MIG instance), bytes.",
             m->memory_used_mib, kMiB);
    per_user(out, s, row, "gpupool_gpu_memory_free_bytes", "Memory free on the GPU (or MIG instance), bytes.",
             m->memory_free_mib, kMiB);
    per_user(out, s, row, "gpupool_gpu_memory_total_bytes", "Memory of the GPU (or MIG instance), bytes.",
             m->memory_total_mib, kMiB);
    per_user(out, s, row, "gpupool_gpu_temperature_celsius", "GPU temperature, degrees Celsius.", m->temperature_celsius);
    per_user(out, s, row, "gpupool_gpu_power_watts", "GPU power draw, watts.", m->power_watts);
    per_user(out, s, row, "gpupool_gpu_energy_joules_total", "Energy the GPU used since the driver was loaded, joules.",
             m->energy_millijoules, 0.001, true);
    per_user(out, s, row, "gpupool_gpu_sm_clock_hertz", "GPU SM (graphics) clock, hertz.", m->sm_clock_mhz, 1e6);
    per_user(out, s, row, "gpupool_gpu_memory_clock_hertz", "GPU memory clock, hertz.", m->memory_clock_mhz, 1e6);
    per_user(out, s, row, "gpupool_gpu_ecc_errors_total", "ECC errors since the driver was loaded, by type.",
             m->ecc_corrected_total, 1.0, true, {{"type", "corrected"}});
    per_user(out, s, row, "gpupool_gpu_ecc_errors_total", "ECC errors since the driver was loaded, by type.",
             m->ecc_uncorrected_total, 1.0, true, {{"type", "uncorrected"}});
    if (m->clock_event_reasons) {
      for (const auto& reason : backend::kClockEventReasons) {
        bool active = false;
        for (const auto& r : *m->clock_event_reasons) active = active || r == reason.name;
        per_user(out, s, row, "gpupool_gpu_clock_event_reason",
                 "Whether a clock event (throttle) reason is active (1) or not (0), by reason.", std::optional<int>(active),
                 1.0, false, {{"reason", reason.name}});
      }
    }
  }
  // Per GPU, whatever its metrics: XIDs seen and health.
  for (const auto& row : rows) {
    if (row.instance) continue;
    if (auto x = s.xids.find(row.gpu->index); x != s.xids.end()) {
      for (const auto& [code, n] : x->second.counts) {
        per_user(out, s, row, "gpupool_gpu_xid_errors_total", "XID errors the GPU reported since the agent started, by code.",
                 std::optional<std::int64_t>(n), 1.0, true, {{"xid", std::to_string(code)}});
      }
    }
    if (auto h = s.health.find(row.gpu->index); h != s.health.end()) {
      for (const auto state : {api::GPUHealth::healthy, api::GPUHealth::degraded, api::GPUHealth::unhealthy, api::GPUHealth::unknown}) {
        per_user(out, s, row, "gpupool_gpu_health", "The GPU's health as the agent judged it (1 on the current state).",
                 std::optional<int>(h->second == state), 1.0, false, {{"state", std::string(api::to_string(state))}});
      }
    }
  }
}

}  // namespace gpupool::exporter
