// The node agent's GPU metrics as Prometheus families, from one collected
// sample. Pure: the agent collects once per interval and every scrape reads
// the families built from that sample (README, "GPU metrics", lists every
// family with its unit).
//
// Three sets, each only where it applies:
// - vendor-neutral `gpupool_gpu_*`, for every GPU and every MIG instance, in
//   base units (ratios 0..1, bytes, joules, hertz, watts, degrees Celsius).
//   Every series of a device carries the same device labels: node, gpu,
//   uuid, model, vendor, gpu_instance_id and mig_profile (empty for the
//   whole GPU), namespace, pod, container, tenant (empty when no pod holds
//   it; a device shared by several containers gets one series per user).
//   Rows for the whole GPU exist for every GPU; a GPU in MIG mode also has
//   one row per instance (utilisation, engine activity and memory are then
//   per instance; the backend leaves the GPU's own utilisation empty).
// - dcgm-exporter's names and labels for NVIDIA GPUs (dcgm_families.cpp),
//   where dcgm-exporter emits them: the device fields for a GPU not in MIG
//   mode; for a GPU in MIG mode its physical fields (temperature, power,
//   energy, clocks, XID, ECC, clock events) on the GPU and, per instance,
//   DCGM_FI_PROF_GR_ENGINE_ACTIVE, DCGM_FI_PROF_DRAM_ACTIVE,
//   DCGM_FI_DEV_FB_USED and DCGM_FI_DEV_FB_FREE with GPU_I_PROFILE and
//   GPU_I_ID. `classic` is the naming most dashboards query (dcgm-exporter
//   before 4.8.3: label Hostname, DCGM_FI_DRIVER_VERSION, percent, MiB,
//   MHz, mJ); `dcgm_4_9` the naming of 4.9.0 (label hostname,
//   DCGM_FI_SYSTEM_DRIVER_VERSION, DCGM 4.7 field names with ratios, bytes,
//   hertz, joules).
// - AMD device-metrics-exporter's names and labels for AMD GPUs
//   (amd_families.cpp): gpu_gfx_activity, gpu_used_vram, ...
//
// A value the backend did not report (std::nullopt) gives no series; nothing
// is made up. dcgm-exporter types a few fields as counters whose names lack
// `_total`; they are typed gauge here (same name and value; PromQL's rate()
// does not look at the type), so `promtool check metrics` stays clean.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/api/gpunode.h"
#include "gpupool/backend/backend.h"
#include "gpupool/metrics/snapshot.h"
#include "gpupool/podresources/attribution.h"

namespace gpupool::exporter {

// XID errors one GPU reported since the agent started.
struct XidTally {
  std::map<int, std::int64_t> counts;  // XID code -> occurrences
  std::optional<int> last;             // the most recent code
  bool operator==(const XidTally&) const = default;
};

// One collection: what every scrape until the next one reads.
struct GpuSample {
  std::string hostname;                       // the node's name
  backend::Inventory inventory;               // GPUs, their MIG instances, driver version
  std::vector<backend::GpuMetrics> metrics;   // matched to inventory GPUs by index
  std::map<int, XidTally> xids;               // by GPU index
  std::map<int, api::GPUHealth> health;       // by GPU index; absent: not judged (no series)
  podresources::Attribution users;            // who holds each GPU and MIG instance
  std::map<std::string, std::string> tenants; // namespace -> tenant; absent: the namespace itself
};

enum class DcgmNaming { classic, dcgm_4_9 };

struct ExporterOptions {
  DcgmNaming dcgm = DcgmNaming::classic;
};

// Every family, in a stable order (neutral, then dcgm-exporter's, then AMD's);
// families without a series are left out.
std::vector<metrics::FamilySnapshot> gpu_families(const GpuSample& sample, const ExporterOptions& options = {});

}  // namespace gpupool::exporter
