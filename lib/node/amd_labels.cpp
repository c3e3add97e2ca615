// The AMD GPU node labeller's amd.com/gpu.* labels (ROCm/k8s-device-plugin
// cmd/k8s-node-labeller/main.go, internal/pkg/amdgpu/amdgpu.go) for the AMD
// GPUs of an inventory.
#include <cctype>
#include <cmath>
#include <cstdio>

#include "gpupool/node/node_labels.h"

namespace gpupool::node {
namespace {

using Labels = std::map<std::string, std::string>;
using Counts = std::map<std::string, int>;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// main.go createLabels, the amd.com/ half: one distinct value ->
// amd.com/gpu.<kind>=<value>; several -> amd.com/gpu.<kind>.<value>=<count>.
void create_labels(Labels& out, const std::string& kind, const Counts& counts) {
  const std::string prefix = "amd.com/gpu." + kind;
  if (counts.size() == 1) {
    out[prefix] = counts.begin()->first;
    return;
  }
  for (const auto& [value, n] : counts) {
    std::string v = label_value(value);
    // The key's name part (after "amd.com/") is at most 63 characters.
    if (v.empty() || prefix.size() - 8 + 1 + v.size() > 63) continue;
    out[prefix + "." + v] = std::to_string(n);
  }
}

// libdrm's family name (amdgpu.go FamilyIDtoString): the Instinct parts are
// gfx9, AMDGPU_FAMILY_AI. Others are not in the catalog; "" = unknown.
std::string family(const gpu::GpuModel* model) {
  if (model == nullptr) return "";
  if (model->architecture.rfind("CDNA", 0) == 0 || model->architecture.rfind("GCN", 0) == 0) return "AI";
  return "";
}

// "product-name": strings.NewReplacer(" ", "_", "(", "", ")", "").
std::string product_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (c == '(' || c == ')') continue;
    out += c == ' ' ? '_' : c;
  }
  return out;
}

// "NPS4" -> 4; anything else 1.
int nps_count(std::string_view memory_partition) {
  std::string m = upper(memory_partition);
  if (m.size() > 3 && m.rfind("NPS", 0) == 0) {
    int n = 0;
    for (char c : m.substr(3)) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return 1;
      n = n * 10 + (c - '0');
    }
    if (n > 0) return n;
  }
  return 1;
}

}  // namespace

int amd_logical_gpus(const backend::GpuInfo& gpu, const gpu::GpuModel* model) {
  std::string mode = upper(gpu.compute_partition);
  if (mode == "DPX") return 2;
  if (mode == "TPX") return 3;
  if (mode == "QPX") return 4;
  if (mode == "CPX") {
    std::string key = lower(model != nullptr ? model->id + " " + model->display_name : gpu.name);
    return key.find("mi300a") != std::string::npos ? 6 : 8;  // XCDs
  }
  return 1;
}

std::map<std::string, std::string> amd_labels(const LabelInputs& in) {
  Labels out;
  if (in.inventory == nullptr) return out;
  const backend::Inventory& inv = *in.inventory;
  Counts families, device_ids, products, vram, partitions;
  const backend::GpuInfo* first = nullptr;
  for (const backend::GpuInfo& g : inv.gpus) {
    if (g.vendor != gpu::Vendor::amd) continue;
    if (first == nullptr) first = &g;
    const gpu::GpuModel* model = catalog_model(g, in.catalog);
    // The labeller counts every logical GPU (amdgpu_xcp_* partitions
    // included); "device-id" reads the PCI device file, which partitions lack.
    const int logical = amd_logical_gpus(g, model);
    if (std::string f = family(model); !f.empty()) families[f] += logical;
    if (g.pci_device_id != 0) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "%04x", g.pci_device_id);
      device_ids[buf] += 1;
    }
    if (std::string p = product_name(g.name); !p.empty()) products[p] += logical;
    // "vram": the KFD node's memory bank, size_in_bytes / MiB / 1024 rounded.
    std::int64_t mib = g.memory_mib != 0 ? g.memory_mib : (model != nullptr ? model->memory_mib : 0);
    mib /= nps_count(g.memory_partition);
    if (mib > 0) {
      vram[std::to_string(static_cast<long long>(std::llround(static_cast<double>(mib) / 1024.0))) + "G"] += logical;
    }
    // amdgpu.go UniquePartitionConfigCount: lowercased "<compute>_<memory>".
    if (!g.compute_partition.empty() && !g.memory_partition.empty()) {
      partitions[lower(g.compute_partition) + "_" + lower(g.memory_partition)] += logical;
    }
  }
  if (first == nullptr) return out;

  create_labels(out, "family", families);
  create_labels(out, "device-id", device_ids);
  create_labels(out, "product-name", products);
  create_labels(out, "vram", vram);
  if (!inv.driver_version.empty()) out["amd.com/gpu.driver-version"] = inv.driver_version;
  // "compute-memory-partition": only when every reported pair is the same.
  if (partitions.size() == 1) out["amd.com/gpu.compute-memory-partition"] = partitions.begin()->first;
  // "*-partitioning-supported": whether the first GPU has sysfs
  // available_compute_partition / available_memory_partition.
  const gpu::GpuModel* model = catalog_model(*first, in.catalog);
  bool compute_ok = !first->compute_partition.empty();
  bool memory_ok = !first->memory_partition.empty();
  if (model != nullptr) {
    compute_ok = model->amd_partitions && !model->amd_partitions->compute.empty();
    memory_ok = model->amd_partitions && !model->amd_partitions->memory.empty();
  }
  out["amd.com/gpu.compute-partitioning-supported"] = compute_ok ? "true" : "false";
  out["amd.com/gpu.memory-partitioning-supported"] = memory_ok ? "true" : "false";
  return out;
}

}  // namespace gpupool::node
