// dcgm-exporter's names and labels for NVIDIA GPUs, so dashboards built on it
// (Grafana 12239 and the like) work unchanged. Where each field is emitted:
// gpu_families.h. The 4.9.0 names follow DCGM 4.7's field names and units.
#include <cstdint>
#include <string>

#include "device_rows.h"
#include "neutral_families.h"

namespace gpupool::exporter {
namespace {

struct Field {
  const char* classic;
  const char* v4_9;
  double classic_scale;  // from our unit (percent, MiB, MHz, mJ, W, C, count) to the field's
  double v4_9_scale;
  const char* help;
};

constexpr Field kGpuUtil{"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_GPU_UTIL_RATIO", 1, 0.01, "GPU utilization (in %; 4.9: ratio)."};
constexpr Field kFbUsed{"DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_USED_BYTES", 1, kMiB, "Framebuffer memory used (in MiB; 4.9: bytes)."};
constexpr Field kFbFree{"DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_FB_FREE_BYTES", 1, kMiB, "Framebuffer memory free (in MiB; 4.9: bytes)."};
constexpr Field kFbTotal{nullptr, "DCGM_FI_DEV_FB_CAPACITY_BYTES", 1, kMiB, "Framebuffer memory capacity (bytes)."};
constexpr Field kTemp{"DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_GPU_TEMP_CELSIUS", 1, 1, "GPU temperature (in C)."};
constexpr Field kPower{"DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_BOARD_POWER_WATTS", 1, 1, "Power draw (in W)."};
constexpr Field kEnergy{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "DCGM_FI_DEV_GPU_ENERGY_JOULES_TOTAL", 1, 0.001,
                        "Total energy consumption since the driver was loaded (in mJ; 4.9: J)."};
constexpr Field kSmClock{"DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_SM_CLOCK_HERTZ", 1, 1e6, "SM clock frequency (in MHz; 4.9: Hz)."};
constexpr Field kMemClock{"DCGM_FI_DEV_MEM_CLOCK", "DCGM_FI_DEV_MEMORY_CLOCK_HERTZ", 1, 1e6,
                          "Memory clock frequency (in MHz; 4.9: Hz)."};
constexpr Field kXid{"DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_XID_ERRORS", 1, 1, "Value of the last XID error encountered."};
constexpr Field kEccSbe{"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", 1, 1,
                        "Total number of single-bit volatile ECC errors."};
constexpr Field kEccDbe{"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", 1, 1,
                        "Total number of double-bit volatile ECC errors."};
constexpr Field kThrottle{"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "DCGM_FI_DEV_CLOCKS_EVENT_REASONS", 1, 1,
                          "Current clock event (throttle) reasons, NVML's bitmask."};
constexpr Field kGrActive{"DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_GR_ENGINE_UTIL_RATIO", 1, 1,
                          "Ratio of time the graphics engine is active."};
constexpr Field kDramActive{"DCGM_FI_PROF_DRAM_ACTIVE", "DCGM_FI_PROF_DRAM_UTIL_RATIO", 1, 1,
                            "Ratio of cycles the device memory interface is active sending or receiving data."};

class Dcgm {
 public:
  Dcgm(const GpuSample& s, DcgmNaming naming, FamilySet& out) : s_(s), v49_(naming == DcgmNaming::dcgm_4_9), out_(out) {
    labels_ = {"gpu",      "UUID", "pci_bus_id", "device",
               "modelName", v49_ ? "hostname" : "Hostname", "GPU_I_PROFILE", "GPU_I_ID",
               v49_ ? "DCGM_FI_SYSTEM_DRIVER_VERSION" : "DCGM_FI_DRIVER_VERSION", "container", "namespace", "pod"};
  }
  // One series per user of the row when `value` (in our unit) is known.
  template <typename T>
  void emit(const Field& f, const DeviceRow& row, const std::optional<T>& value) {
    const char* name = v49_ ? f.v4_9 : f.classic;
    if (!value || name == nullptr) return;
    const double scale = v49_ ? f.v4_9_scale : f.classic_scale;
    const std::string n(name);
    for_each_user(row, [&](const podresources::PodRef* u) {
      const auto& g = *row.gpu;
      std::vector<std::string> values = {std::to_string(g.index),
                                         g.uuid,
                                         g.pci_bus_id,
                                         "nvidia" + std::to_string(g.index),
                                         g.name,
                                         s_.hostname,
                                         row.instance ? row.instance->profile : "",
                                         row.instance ? std::to_string(row.instance->gpu_instance_id) : "",
                                         s_.inventory.driver_version,
                                         u ? u->container : "",
                                         u ? u->namespace_ : "",
                                         u ? u->pod : ""};
      // Typed gauge even where dcgm-exporter says counter: promtool's lint
      // wants counters to end in lower-case _total (gpu_families.h).
      out_.gauge(n, f.help, labels_, std::move(values), static_cast<double>(*value) * scale);
    });
  }

 private:
  const GpuSample& s_;
  bool v49_;
  FamilySet& out_;
  std::vector<std::string> labels_;
};

bool in_mig_mode(const backend::GpuInfo& g) { return g.mig.current == backend::MigMode::enabled; }

}  // namespace

void add_dcgm_families(const GpuSample& s, DcgmNaming naming, FamilySet& out) {
  Dcgm d(s, naming, out);
  for (const auto& row : device_rows(s)) {
    if (row.gpu->vendor != gpu::Vendor::nvidia) continue;
    if (row.instance) {
      if (!row.instance_metrics) continue;
      const auto& im = *row.instance_metrics;
      d.emit(kGrActive, row, im.graphics_engine_active);
      d.emit(kDramActive, row, im.dram_active);
      d.emit(kFbUsed, row, im.memory_used_mib);
      d.emit(kFbFree, row, im.memory_free_mib);
      d.emit(kFbTotal, row, im.memory_total_mib);
      continue;
    }
    // The physical GPU's fields, MIG mode or not.
    const auto x = s.xids.find(row.gpu->index);
    d.emit(kXid, row, std::optional<int>(x == s.xids.end() ? 0 : x->second.last.value_or(0)));
    if (!row.metrics) continue;
    const auto& m = *row.metrics;
    d.emit(kTemp, row, m.temperature_celsius);
    d.emit(kPower, row, m.power_watts);
    d.emit(kEnergy, row, m.energy_millijoules);
    d.emit(kSmClock, row, m.sm_clock_mhz);
    d.emit(kMemClock, row, m.memory_clock_mhz);
    d.emit(kEccSbe, row, m.ecc_corrected_total);
    d.emit(kEccDbe, row, m.ecc_uncorrected_total);
    d.emit(kThrottle, row, m.clock_event_reasons_mask);
    if (in_mig_mode(*row.gpu)) continue;  // utilisation and memory are per instance then
    d.emit(kGpuUtil, row, m.utilization_percent);
    d.emit(kFbUsed, row, m.memory_used_mib);
    d.emit(kFbFree, row, m.memory_free_mib);
    d.emit(kFbTotal, row, m.memory_total_mib);
  }
}

}  // namespace gpupool::exporter
