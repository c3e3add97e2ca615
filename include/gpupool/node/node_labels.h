// What a node's GPU inventory says about the node: the labels the node agent
// writes on its own Node and the extended resources the device plugin would
// advertise there. Pure functions of their inputs (no I/O, no clock).
//
// The labels are those our users' tools already select on, spelt exactly as
// those tools write them:
// - NVIDIA: GPU Feature Discovery (NVIDIA/k8s-device-plugin internal/lm/):
//   nvml.go (versions, mig.capable, mps.capable), resource.go (gpu.product,
//   count, replicas, sharing-strategy, memory, family, compute.*, sanitise),
//   mig-strategy.go (mig.strategy, the single and mixed strategy labels).
//   Plus nvidia.com/gpu.present=true (the GPU Operator's node label) and
//   nvidia.com/device-plugin.config (the device plugin's per-node config).
// - AMD: the AMD GPU node labeller (ROCm/k8s-device-plugin
//   cmd/k8s-node-labeller/main.go, internal/pkg/amdgpu/amdgpu.go), its
//   non-"beta." labels.
// - Ours: gpupool.io/gpu-model = the catalog id.
//
// What is left out because the inventory does not carry it: GFD's
// gfd.timestamp, gpu.machine (DMI), gpu.mode (PCI class), gpu.clique and
// gpu.imex-domain (fabric), the MIG multiprocessors / engines.* attributes;
// the labeller's cu-count, simd-count, driver-src-version, firmware, and its
// beta.amd.com/ copies.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/api/common_types.h"
#include "gpupool/backend/backend.h"
#include "gpupool/gpu/catalog.h"

namespace gpupool::node {

struct LabelInputs {
  const backend::Inventory* inventory = nullptr;  // nullptr: no GPUs
  api::MIGStrategy mig_strategy = api::MIGStrategy::mixed;
  api::Sharing sharing;                 // time-slicing / MPS replicas
  std::string device_plugin_config;     // value for nvidia.com/device-plugin.config, "" = no label
  const gpu::Catalog* catalog = nullptr;  // nullptr: no catalog facts (model id, MIG profile sizes, partitions)
};

// Every label the agent wants on its Node now (key -> value). No GPUs: none.
//
// NVIDIA (when the inventory has an NVIDIA GPU):
//   nvidia.com/gpu.present            "true" (GPU Operator)
//   nvidia.com/cuda.driver-version.{major,minor,revision,full}, and the
//   deprecated cuda.driver.{major,minor,rev}: from Inventory::driver_version
//   split on '.' (2 or 3 parts, else none of them; revision "" for "X.Y"), nvml.go.
//   nvidia.com/cuda.runtime-version.{major,minor,full}, deprecated
//   cuda.runtime.{major,minor}: from Inventory::cuda_version "12.8", nvml.go.
//   nvidia.com/mig.capable            "true" if any GPU is MIG-capable, nvml.go
//   nvidia.com/mps.capable            "true" only with MPS sharing and no GPU in
//                                     MIG mode, nvml.go newSharingLabeler (GFD
//                                     fails outright for MPS with MIG on; we say "false")
//   nvidia.com/mig.strategy           "single" / "mixed", always: GFD writes it
//                                     for any strategy but none, MIG-capable or not
//   nvidia.com/device-plugin.config   the given value, when not ""
//   nvidia.com/gpu.{product,count,replicas,sharing-strategy,memory,family,
//     compute.major,compute.minor}: resource.go, for ONE model. GFD labels a
//     node whose GPUs report several names once per name, in Go map order,
//     so the last name written wins at random; we pick the name of the
//     lowest-index GPU with MIG off (GFD's MIG-off labels overwrite the MIG-on
//     ones), else of the lowest-index GPU. gpu.count counts the GPUs with that
//     name (MIG on or off), not all GPUs. product = sanitise(name) ("NVIDIA
//     A100-SXM4-80GB" -> "NVIDIA-A100-SXM4-80GB") + "-SHARED" when the
//     resource is shared (replicas > 1) and not renamed. A GPU with MIG on
//     gets replicas "0" and sharing-strategy "none" (no sharing config);
//     a GPU with MIG off replicas = the sharing replicas, else "1".
//     memory = total MiB (omitted when 0). family = GFD's getArchFamily of the
//     compute capability (ampere, hopper, ada-lovelace, ...), or, when the
//     capability is unknown (0), the catalog architecture lowercased with
//     spaces as '-' (our fallback; GFD writes no family then).
//   MIG single (mig-strategy.go newMigStrategySingleLabeler), when a GPU has
//     MIG on: every GPU in MIG mode with a MIG device, none with MIG off, one
//     profile -> gpu.product = sanitise(name) + "-MIG-" + profile (+ "-SHARED"),
//     gpu.count = MIG devices, gpu.replicas, gpu.sharing-strategy, gpu.memory
//     = the profile's MiB, gpu.slices.gi, gpu.slices.ci. Otherwise the
//     "invalid" set: product sanitise(name)+"-MIG-INVALID", count 0, replicas 0,
//     sharing-strategy "", memory 0 (name of the lowest-index GPU in MIG mode);
//     family and compute.* stay as for whole GPUs. gpu.memory and the
//     slices need the catalog's profile (slices.* fall back to the "<n>g").
//     Sharing applies to nvidia.com/gpu as for whole GPUs.
//   MIG mixed (newMigStrategyMixedLabeler), per profile P of the MIG devices
//     present ('+' written '.', "1g.10gb+me" -> "1g.10gb.me"):
//     nvidia.com/mig-P.{product,count,replicas,sharing-strategy,memory,
//     slices.gi,slices.ci}; product = sanitise(parent name) + "-MIG-" + P
//     (+ "-SHARED"), parent = the GPU of the first such device. Time-slicing
//     shares them (replicas, "time-slicing"); MPS does not (replicas "1", "none").
//   A MIG device is an instance with a compute instance (the device plugin
//   and GFD see compute instances); slices.gi = slices.ci = the profile's
//   compute slices (our instances have one compute instance spanning the GPU
//   instance); memory = the catalog profile's memoryMiB.
//
// AMD (when the inventory has an AMD GPU), the labeller's createLabels: one
// distinct value over the node's logical GPUs -> amd.com/gpu.<kind>=<value>;
// several -> amd.com/gpu.<kind>.<value>=<how many> (device-id counts boards:
// the partitions' sysfs nodes have no PCI device file), for kind in
//   family        "AI" for the Instinct (CDNA, gfx9) parts (libdrm family name)
//   device-id     PCI device id, 4 lowercase hex digits without 0x ("74a1")
//   product-name  the reported name, ' ' -> '_', '(' ')' dropped ("AMD_Instinct_MI300X")
//   vram          "<MiB per logical GPU / 1024, rounded>G": memory / NPS count ("48G" for MI300X NPS4)
// and amd.com/gpu.driver-version (Inventory::driver_version),
// amd.com/gpu.compute-memory-partition ("cpx_nps4": lowercase, when every GPU
// reports both modes and all the same), amd.com/gpu.compute-partitioning-supported,
// amd.com/gpu.memory-partitioning-supported ("true"/"false", from the catalog's
// partition modes, else whether the GPU reports a mode).
//
// gpupool.io/gpu-model: the catalog id of the model the nvidia.com/gpu.*
// labels describe, else of the first AMD GPU; omitted when not in the catalog.
//
// Every value is a valid label value (label_value below).
std::map<std::string, std::string> node_labels(const LabelInputs& in);

// Whether the agent owns this label key, so it removes it when node_labels no
// longer yields it: exactly the keys node_labels can produce (the lists above,
// mig-<profile>.* for any profile spelling "<n>g.<m>gb[.<suffix>]", the AMD
// "<kind>.<value>" forms). Never kubelet's, NFD's, GFD's labels we do not
// write (gfd.timestamp, gpu.machine, gpu.mode, gpu.multiprocessors, ...),
// nor the GPU Operator's and mig-manager's (nvidia.com/gpu.deploy.*,
// gpu.workload.config, mig.config, mig.config.state, gpu-driver-upgrade-*,
// cc.*), nor user labels.
bool is_agent_owned_label(std::string_view key);

// The extended resources the device plugins would advertise (resource -> count),
// none with count 0. NVIDIA (NVIDIA/k8s-device-plugin internal/rm/device_map.go,
// cmd/nvidia-device-plugin/main.go, internal/plugin/mps.go):
// - nvidia.com/gpu: one per GPU with MIG off (a GPU with MIG on is never one).
// - mixed: nvidia.com/mig-<profile, '+' as '.'>: one per MIG device.
// - single: MIG devices as nvidia.com/gpu; when a GPU is in MIG mode the node
//   must be uniform (every GPU in MIG mode with devices, one profile, one
//   model) or the plugin refuses to start: nothing NVIDIA is advertised.
// - Time-slicing (replicas >= 2): every NVIDIA resource above is multiplied by
//   replicas and, with renameResources, named <name>.shared. (We assume the
//   generated plugin config lists nvidia.com/gpu and every mig-<profile>.)
// - MPS (replicas >= 2): nvidia.com/gpu multiplied by replicas, not renamed.
//   The plugin refuses MPS with MIG devices (internal/plugin/mps.go): then
//   nothing NVIDIA is advertised. It also refuses to start with MPS and
//   --mig-strategy=mixed (cmd/nvidia-device-plugin/main.go); that is a property
//   of the config written for the plugin (which must say single, the same on
//   a node without MIG devices), not of the node, so mixed is read as single here.
// AMD (ROCm/k8s-device-plugin, single naming strategy): amd.com/gpu, one per
// logical GPU (amd_logical_gpus).
std::map<std::string, std::int64_t> extended_resources(const LabelInputs& in);

// The resource names the agent manages in Node status: nvidia.com/gpu,
// nvidia.com/gpu.shared, nvidia.com/mig-* (incl. .shared), amd.com/gpu.
bool is_agent_owned_resource(std::string_view name);

// ---- Building blocks (used by the above, tested on their own) -------------

// A valid Kubernetes label value made of `raw`: runs of whitespace become '-',
// characters outside [A-Za-z0-9._-] are dropped, at most 63 characters, and it
// starts and ends with an alphanumeric (others trimmed); may come out "".
std::string label_value(std::string_view raw);

// GFD's sanitise (resource.go): drop characters outside [A-Za-z0-9-_. ] (tabs
// too), then join the space-separated fields with '-'.
std::string gfd_sanitise(std::string_view raw);

// GFD's getArchFamily (resource.go): 8.0 -> "ampere", 8.9 -> "ada-lovelace",
// 9.0 -> "hopper", 10/12 -> "blackwell", unknown -> "undefined".
std::string gfd_arch_family(int compute_major, int compute_minor);

// A MIG profile as the device plugin and GFD name it (nvml-mig-device.go
// GetName): "1g.10gb+me" -> "1g.10gb.me".
std::string mig_device_name(std::string_view profile);

// The NVIDIA part of node_labels (before label_value); empty without an NVIDIA GPU.
std::map<std::string, std::string> nvidia_labels(const LabelInputs& in);
// The AMD part of node_labels (before label_value); empty without an AMD GPU.
std::map<std::string, std::string> amd_labels(const LabelInputs& in);

// The GPU whose model the nvidia.com/gpu.* labels describe: the lowest-index
// NVIDIA GPU with MIG off, else the lowest-index NVIDIA GPU; nullptr if none.
const backend::GpuInfo* described_nvidia_gpu(const backend::Inventory& inv);

// Logical GPUs an AMD GPU shows in its compute partition mode: SPX (or none
// reported) 1, DPX 2, TPX 3, QPX 4, CPX = the model's XCD count (MI300A: 6;
// MI300X, MI325X, MI350X, MI355X and any other: 8; AMD partitioning docs,
// amd-smi "GPU partitioning"). The catalog has no XCD count, so the model is
// recognised by its id or reported name.
int amd_logical_gpus(const backend::GpuInfo& gpu, const gpu::GpuModel* model);

// Sharing as the NVIDIA device plugin config expresses it.
struct SharingConfig {
  int replicas = 1;           // 1 = not shared (the plugin needs >= 2)
  bool mps = false;           // MPS rather than time-slicing (when replicas >= 2)
  bool renamed = false;       // advertised as <name>.shared (time-slicing only)
  std::string_view strategy() const;  // "none", "time-slicing", "mps" (sharing.go)
};
SharingConfig sharing_config(const api::Sharing& sharing);

// One MIG device type present on the node: the GPU instances with a compute
// instance of one profile, in inventory order.
struct MigDeviceType {
  std::string profile;                       // catalog spelling, "1g.10gb+me"
  const backend::GpuInfo* parent = nullptr;  // GPU of its first device
  int count = 0;
  const gpu::MigProfile* catalog_profile = nullptr;  // nullptr when not in the catalog
  std::int64_t memory_mib = 0;  // as the GPU reports its first device; else the catalog's; 0 unknown
};
// Per profile, in order of first appearance (GPU index, then placement);
// only GPUs whose current MIG mode is enabled.
std::vector<MigDeviceType> mig_device_types(const backend::Inventory& inv, const gpu::Catalog* catalog);

// Why mig-strategy single cannot expose this node's MIG devices as
// nvidia.com/gpu ("" when it can, or when no GPU is in MIG mode), as
// mig-strategy.go says it: "at least one MIG device is enabled but empty",
// "devices with MIG enabled and disable detected", "more than one MIG device
// type present on node" (also for one profile name on GPUs of two names: GFD
// compares names only, but the device plugin compares the devices'
// attributes and refuses to start).
std::string single_strategy_problem(const backend::Inventory& inv, const gpu::Catalog* catalog);

// The catalog model of a GPU: by catalog_id, else by reported name, else by
// PCI device id; nullptr when none (or no catalog).
const gpu::GpuModel* catalog_model(const backend::GpuInfo& gpu, const gpu::Catalog* catalog);

}  // namespace gpupool::node
