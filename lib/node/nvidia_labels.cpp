// GPU Feature Discovery's labels (NVIDIA/k8s-device-plugin internal/lm/) for
// the NVIDIA GPUs of an inventory, plus the GPU Operator's gpu.present and the
// device plugin's per-node config label.
#include <algorithm>
#include <cctype>
#include <charconv>

#include "gpupool/node/node_labels.h"

namespace gpupool::node {
namespace {

using Labels = std::map<std::string, std::string>;

bool is_nvidia(const backend::GpuInfo& g) { return g.vendor == gpu::Vendor::nvidia; }
bool mig_on(const backend::GpuInfo& g) { return is_nvidia(g) && g.mig.current == backend::MigMode::enabled; }

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    std::size_t pos = s.find(sep, start);
    out.emplace_back(s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) return out;
    start = pos + 1;
  }
}

bool parse_int(std::string_view s, int& out) {
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// nvml.go newVersionLabeler: driver "X.Y[.Z]" (else GFD fails; we omit) and
// the CUDA driver API version.
void version_labels(const backend::Inventory& inv, Labels& out) {
  std::vector<std::string> d = split(inv.driver_version, '.');
  if (d.size() >= 2 && d.size() <= 3 && !d[0].empty() && !d[1].empty()) {
    std::string rev = d.size() > 2 ? d[2] : "";
    out["nvidia.com/cuda.driver.major"] = d[0];
    out["nvidia.com/cuda.driver.minor"] = d[1];
    out["nvidia.com/cuda.driver.rev"] = rev;
    out["nvidia.com/cuda.driver-version.major"] = d[0];
    out["nvidia.com/cuda.driver-version.minor"] = d[1];
    out["nvidia.com/cuda.driver-version.revision"] = rev;
    out["nvidia.com/cuda.driver-version.full"] = inv.driver_version;
  }
  std::vector<std::string> c = split(inv.cuda_version, '.');
  int major = 0, minor = 0;
  if (c.size() >= 2 && parse_int(c[0], major) && parse_int(c[1], minor)) {
    out["nvidia.com/cuda.runtime.major"] = std::to_string(major);
    out["nvidia.com/cuda.runtime.minor"] = std::to_string(minor);
    out["nvidia.com/cuda.runtime-version.major"] = std::to_string(major);
    out["nvidia.com/cuda.runtime-version.minor"] = std::to_string(minor);
    out["nvidia.com/cuda.runtime-version.full"] = std::to_string(major) + "." + std::to_string(minor);
  }
}

// resource.go baseLabeler/getProductName: sanitised parts joined by '-',
// "SHARED" appended when replicas > 1 and the resource is not renamed.
std::string product(std::vector<std::string_view> parts, bool shared_not_renamed) {
  std::string out;
  for (std::string_view p : parts) {
    std::string s = gfd_sanitise(p);
    if (s.empty()) continue;
    if (!out.empty()) out += '-';
    out += s;
  }
  if (!out.empty() && shared_not_renamed) out += "-SHARED";
  return out;
}

// How one resource (nvidia.com/gpu or mig-<profile>) is shared: GFD's
// getReplicas / sharing-strategy. `listed`: the plugin config lists it as a
// shared resource; `with_config`: GFD passed a sharing config at all (not for
// MIG-enabled GPUs' full-GPU labels).
struct ResourceSharing {
  int replicas = 1;
  std::string strategy = "none";
  bool shared_not_renamed = false;
};
ResourceSharing resource_sharing(const SharingConfig& sc, bool listed, bool with_config) {
  ResourceSharing r;
  if (!with_config) {
    r.replicas = 0;
    return r;
  }
  if (!listed || sc.replicas < 2) return r;
  r.replicas = sc.replicas;
  r.strategy = std::string(sc.strategy());
  r.shared_not_renamed = !sc.renamed;
  return r;
}

void base_labels(Labels& out, const std::string& resource, const std::string& product_name, int count,
                 const ResourceSharing& rs) {
  out[resource + ".product"] = product_name;
  out[resource + ".count"] = std::to_string(count);
  out[resource + ".replicas"] = std::to_string(rs.replicas);
  out[resource + ".sharing-strategy"] = rs.strategy;
}

int gi_slices(const MigDeviceType& t) {
  if (t.catalog_profile != nullptr) return t.catalog_profile->compute_slices;
  int n = 0;  // "3g.40gb" -> 3
  std::size_t g = t.profile.find('g');
  if (g != std::string::npos && parse_int(std::string_view(t.profile).substr(0, g), n)) return n;
  return 0;
}

// nvml-mig-device.go GetAttributes, the attributes the catalog gives.
void mig_attribute_labels(Labels& out, const std::string& resource, const MigDeviceType& t) {
  if (t.memory_mib > 0) out[resource + ".memory"] = std::to_string(t.memory_mib);
  if (int slices = gi_slices(t); slices > 0) {
    out[resource + ".slices.gi"] = std::to_string(slices);
    out[resource + ".slices.ci"] = std::to_string(slices);
  }
}

std::string family_fallback(const gpu::GpuModel* model) {
  if (model == nullptr || model->architecture.empty()) return "";
  std::string out;
  for (char c : model->architecture) {
    out += c == ' ' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

// mig-strategy.go newGPULabelers + resource.go NewGPUResourceLabeler.
void full_gpu_labels(const LabelInputs& in, const SharingConfig& sc, Labels& out) {
  const backend::Inventory& inv = *in.inventory;
  const backend::GpuInfo& d = *described_nvidia_gpu(inv);
  int count = static_cast<int>(
      std::count_if(inv.gpus.begin(), inv.gpus.end(), [&](const backend::GpuInfo& g) { return is_nvidia(g) && g.name == d.name; }));
  ResourceSharing rs = resource_sharing(sc, true, !mig_on(d));
  base_labels(out, "nvidia.com/gpu", product({d.name}, rs.shared_not_renamed), count, rs);
  if (d.memory_mib != 0) out["nvidia.com/gpu.memory"] = std::to_string(d.memory_mib);
  if (d.compute_major != 0) {
    out["nvidia.com/gpu.family"] = gfd_arch_family(d.compute_major, d.compute_minor);
    out["nvidia.com/gpu.compute.major"] = std::to_string(d.compute_major);
    out["nvidia.com/gpu.compute.minor"] = std::to_string(d.compute_minor);
  } else if (std::string f = family_fallback(catalog_model(d, in.catalog)); !f.empty()) {
    out["nvidia.com/gpu.family"] = f;
  }
}

// mig-strategy.go newMigStrategySingleLabeler / newInvalidMigStrategyLabeler.
void single_strategy_labels(const LabelInputs& in, const SharingConfig& sc, Labels& out) {
  const backend::Inventory& inv = *in.inventory;
  auto first_mig = std::find_if(inv.gpus.begin(), inv.gpus.end(), mig_on);
  if (first_mig == inv.gpus.end()) return;  // as mig-strategy none
  if (!single_strategy_problem(inv, in.catalog).empty()) {
    out["nvidia.com/gpu.product"] = product({first_mig->name, "MIG", "INVALID"}, false);
    out["nvidia.com/gpu.count"] = "0";
    out["nvidia.com/gpu.replicas"] = "0";
    out["nvidia.com/gpu.sharing-strategy"] = "";
    out["nvidia.com/gpu.memory"] = "0";
    return;
  }
  const MigDeviceType t = mig_device_types(inv, in.catalog).front();
  ResourceSharing rs = resource_sharing(sc, true, true);
  base_labels(out, "nvidia.com/gpu", product({t.parent->name, "MIG", mig_device_name(t.profile)}, rs.shared_not_renamed),
              t.count, rs);
  mig_attribute_labels(out, "nvidia.com/gpu", t);
}

// mig-strategy.go newMigStrategyMixedLabeler. Time-slicing lists every
// mig-<profile> resource; MPS lists only nvidia.com/gpu.
void mixed_strategy_labels(const LabelInputs& in, const SharingConfig& sc, Labels& out) {
  for (const MigDeviceType& t : mig_device_types(*in.inventory, in.catalog)) {
    std::string name = mig_device_name(t.profile);
    std::string resource = "nvidia.com/mig-" + name;
    ResourceSharing rs = resource_sharing(sc, !sc.mps, true);
    base_labels(out, resource, product({t.parent->name, "MIG", name}, rs.shared_not_renamed), t.count, rs);
    mig_attribute_labels(out, resource, t);
  }
}

}  // namespace

const backend::GpuInfo* described_nvidia_gpu(const backend::Inventory& inv) {
  const backend::GpuInfo* first = nullptr;
  for (const backend::GpuInfo& g : inv.gpus) {
    if (!is_nvidia(g)) continue;
    if (!mig_on(g)) return &g;
    if (first == nullptr) first = &g;
  }
  return first;
}

std::map<std::string, std::string> nvidia_labels(const LabelInputs& in) {
  Labels out;
  if (in.inventory == nullptr || described_nvidia_gpu(*in.inventory) == nullptr) return out;
  const backend::Inventory& inv = *in.inventory;
  const SharingConfig sc = sharing_config(in.sharing);
  const bool any_mig_on = std::any_of(inv.gpus.begin(), inv.gpus.end(), mig_on);
  const bool any_mig_capable =
      std::any_of(inv.gpus.begin(), inv.gpus.end(), [](const backend::GpuInfo& g) { return is_nvidia(g) && g.mig_capable; });

  out["nvidia.com/gpu.present"] = "true";
  version_labels(inv, out);
  out["nvidia.com/mig.capable"] = any_mig_capable ? "true" : "false";
  out["nvidia.com/mps.capable"] = sc.mps && sc.replicas >= 2 && !any_mig_on ? "true" : "false";
  out["nvidia.com/mig.strategy"] = in.mig_strategy == api::MIGStrategy::single ? "single" : "mixed";
  if (!in.device_plugin_config.empty()) out["nvidia.com/device-plugin.config"] = in.device_plugin_config;

  full_gpu_labels(in, sc, out);
  if (in.mig_strategy == api::MIGStrategy::single) {
    single_strategy_labels(in, sc, out);
  } else {
    mixed_strategy_labels(in, sc, out);
  }
  return out;
}

}  // namespace gpupool::node
