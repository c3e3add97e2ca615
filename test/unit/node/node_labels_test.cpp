// node_labels and extended_resources, one table row per kind of node. Every
// expected value is spelt as GPU Feature Discovery (NVIDIA/k8s-device-plugin
// internal/lm/) or the AMD node labeller (ROCm/k8s-device-plugin
// cmd/k8s-node-labeller) would write it.
#include <gtest/gtest.h>

#include <cctype>
#include <regex>

#include "gpupool/node/node_labels.h"

namespace gpupool::node {
namespace {

using Labels = std::map<std::string, std::string>;
using Resources = std::map<std::string, std::int64_t>;
using backend::GpuInfo;
using backend::Inventory;
using backend::MigInstance;

GpuInfo nvidia(int index, std::string name, std::string id, std::uint32_t pci, std::int64_t mib, int major, int minor,
               bool mig_capable) {
  GpuInfo g;
  g.index = index;
  g.uuid = "GPU-" + std::to_string(index);
  g.name = std::move(name);
  g.catalog_id = std::move(id);
  g.pci_device_id = pci;
  g.memory_mib = mib;
  g.compute_major = major;
  g.compute_minor = minor;
  g.mig_capable = mig_capable;
  return g;
}
GpuInfo a100(int i) { return nvidia(i, "NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb", 0x20B2, 81920, 8, 0, true); }
GpuInfo h100(int i) { return nvidia(i, "NVIDIA H100 80GB HBM3", "h100-sxm5-80gb", 0x2330, 81559, 9, 0, true); }
GpuInfo t4(int i) { return nvidia(i, "Tesla T4", "t4-16gb", 0x1EB8, 15360, 7, 5, false); }

GpuInfo mi300x(int i, std::string compute, std::string memory) {
  GpuInfo g;
  g.index = i;
  g.vendor = gpu::Vendor::amd;
  g.name = "AMD Instinct MI300X";
  g.catalog_id = "mi300x-192gb";
  g.pci_device_id = 0x74A1;
  g.memory_mib = 196592;
  g.compute_partition = std::move(compute);
  g.memory_partition = std::move(memory);
  return g;
}

MigInstance mig(std::string profile, int start, int gi, int ci = 0) {
  MigInstance m;
  m.profile = std::move(profile);
  m.placement_start = start;
  m.gpu_instance_id = gi;
  m.compute_instance_id = ci;
  return m;
}

GpuInfo with_mig(GpuInfo g, std::vector<MigInstance> instances) {
  g.mig = {backend::MigMode::enabled, backend::MigMode::enabled};
  g.instances = std::move(instances);
  return g;
}

std::vector<MigInstance> seven_1g10gb() {
  std::vector<MigInstance> out;
  for (int i = 0; i < 7; ++i) out.push_back(mig("1g.10gb", i, 7 + i));
  return out;
}

// GPU0: 3g.40gb, a 2g.20gb GPU instance without a compute instance (no
// device), 1g.10gb; GPU1: 1g.10gb+me and six 1g.10gb.
std::vector<GpuInfo> a100_mixed_layout() {
  std::vector<MigInstance> second{mig("1g.10gb+me", 0, 7)};
  for (int i = 1; i < 7; ++i) second.push_back(mig("1g.10gb", i, 8 + i));
  return {with_mig(a100(0), {mig("3g.40gb", 0, 2), mig("2g.20gb", 4, 3, -1), mig("1g.10gb", 6, 13)}),
          with_mig(a100(1), second)};
}

Inventory inventory(std::vector<GpuInfo> gpus, std::string driver = "570.133.20", std::string cuda = "12.8") {
  Inventory inv;
  inv.driver_version = std::move(driver);
  inv.cuda_version = std::move(cuda);
  inv.gpus = std::move(gpus);
  return inv;
}

std::vector<GpuInfo> times(int n, GpuInfo (*make)(int)) {
  std::vector<GpuInfo> out;
  for (int i = 0; i < n; ++i) out.push_back(make(i));
  return out;
}

api::Sharing time_slicing(int replicas, bool rename) {
  api::Sharing s;
  s.mode = api::SharingMode::time_slicing;
  s.time_slicing = api::TimeSlicing{replicas, rename};
  return s;
}
api::Sharing mps(int replicas) {
  api::Sharing s;
  s.mode = api::SharingMode::mps;
  s.mps = api::MPS{replicas, std::nullopt};
  return s;
}

// nvml.go newVersionLabeler for driver 570.133.20, CUDA 12.8.
const Labels kVersions = {
    {"nvidia.com/cuda.driver.major", "570"},
    {"nvidia.com/cuda.driver.minor", "133"},
    {"nvidia.com/cuda.driver.rev", "20"},
    {"nvidia.com/cuda.driver-version.major", "570"},
    {"nvidia.com/cuda.driver-version.minor", "133"},
    {"nvidia.com/cuda.driver-version.revision", "20"},
    {"nvidia.com/cuda.driver-version.full", "570.133.20"},
    {"nvidia.com/cuda.runtime.major", "12"},
    {"nvidia.com/cuda.runtime.minor", "8"},
    {"nvidia.com/cuda.runtime-version.major", "12"},
    {"nvidia.com/cuda.runtime-version.minor", "8"},
    {"nvidia.com/cuda.runtime-version.full", "12.8"},
};

Labels with(Labels base, const Labels& more) {
  for (const auto& [k, v] : more) base[k] = v;
  return base;
}

// The labels of a node of `count` identical whole GPUs, as GFD writes them.
Labels whole_gpus(const std::string& product, int count, const std::string& memory, const std::string& family,
                  int major, int minor, bool mig_capable, const std::string& strategy) {
  return with(kVersions, {
                             {"nvidia.com/gpu.present", "true"},
                             {"nvidia.com/mig.capable", mig_capable ? "true" : "false"},
                             {"nvidia.com/mps.capable", "false"},
                             {"nvidia.com/mig.strategy", strategy},
                             {"nvidia.com/gpu.product", product},
                             {"nvidia.com/gpu.count", std::to_string(count)},
                             {"nvidia.com/gpu.replicas", "1"},
                             {"nvidia.com/gpu.sharing-strategy", "none"},
                             {"nvidia.com/gpu.memory", memory},
                             {"nvidia.com/gpu.family", family},
                             {"nvidia.com/gpu.compute.major", std::to_string(major)},
                             {"nvidia.com/gpu.compute.minor", std::to_string(minor)},
                         });
}
const Labels k8xA100 = with(whole_gpus("NVIDIA-A100-SXM4-80GB", 8, "81920", "ampere", 8, 0, true, "mixed"),
                            {{"gpupool.io/gpu-model", "a100-sxm4-80gb"}});

// The nvidia.com/gpu.* labels of two A100s with MIG on (no sharing config).
const Labels kTwoMigA100 = with(kVersions, {
                                               {"nvidia.com/gpu.present", "true"},
                                               {"nvidia.com/mig.capable", "true"},
                                               {"nvidia.com/mps.capable", "false"},
                                               {"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"},
                                               {"nvidia.com/gpu.count", "2"},
                                               {"nvidia.com/gpu.replicas", "0"},
                                               {"nvidia.com/gpu.sharing-strategy", "none"},
                                               {"nvidia.com/gpu.memory", "81920"},
                                               {"nvidia.com/gpu.family", "ampere"},
                                               {"nvidia.com/gpu.compute.major", "8"},
                                               {"nvidia.com/gpu.compute.minor", "0"},
                                               {"gpupool.io/gpu-model", "a100-sxm4-80gb"},
                                           });

// mixed: nvidia.com/mig-<type>.* for the layout above (catalog A100-80GB sizes).
Labels mig_type(const std::string& type, int count, const std::string& memory, int slices,
                const std::string& replicas = "1", const std::string& strategy = "none", bool shared = false) {
  const std::string k = "nvidia.com/mig-" + type;
  return {
      {k + ".product", "NVIDIA-A100-SXM4-80GB-MIG-" + type + (shared ? "-SHARED" : "")},
      {k + ".count", std::to_string(count)},
      {k + ".replicas", replicas},
      {k + ".sharing-strategy", strategy},
      {k + ".memory", memory},
      {k + ".slices.gi", std::to_string(slices)},
      {k + ".slices.ci", std::to_string(slices)},
  };
}
const Labels kMixedLayout = with(with(with(with(kTwoMigA100, {{"nvidia.com/mig.strategy", "mixed"}}),
                                           mig_type("3g.40gb", 1, "40192", 3)),
                                      mig_type("1g.10gb", 7, "9728", 1)),
                                 mig_type("1g.10gb.me", 1, "9728", 1));

const Labels kMi300xCpxNps4 = {
    {"amd.com/gpu.family", "AI"},
    {"amd.com/gpu.device-id", "74a1"},
    {"amd.com/gpu.product-name", "AMD_Instinct_MI300X"},
    {"amd.com/gpu.vram", "48G"},
    {"amd.com/gpu.driver-version", "6.10.5"},
    {"amd.com/gpu.compute-memory-partition", "cpx_nps4"},
    {"amd.com/gpu.compute-partitioning-supported", "true"},
    {"amd.com/gpu.memory-partitioning-supported", "true"},
    {"gpupool.io/gpu-model", "mi300x-192gb"},
};

constexpr api::MIGStrategy kMixed = api::MIGStrategy::mixed;

struct Case {
  std::string name;
  Inventory inventory;
  api::MIGStrategy strategy = api::MIGStrategy::mixed;
  api::Sharing sharing;
  std::string plugin_config;
  Labels labels;
  Resources resources;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back({"8xA100-80GB, no MIG", inventory(times(8, a100)), kMixed, {}, "", k8xA100, {{"nvidia.com/gpu", 8}}});
  out.push_back({"8xA100-80GB, device plugin config label", inventory(times(8, a100)), kMixed, {}, "a100-ts",
                 with(k8xA100, {{"nvidia.com/device-plugin.config", "a100-ts"}}), {{"nvidia.com/gpu", 8}}});
  out.push_back({"MIG mixed, a layout with a GPU instance lacking a compute instance",
                 inventory(a100_mixed_layout()),
                 api::MIGStrategy::mixed,
                 {},
                 "",
                 kMixedLayout,
                 {{"nvidia.com/mig-3g.40gb", 1}, {"nvidia.com/mig-1g.10gb", 7}, {"nvidia.com/mig-1g.10gb.me", 1}}});
  out.push_back({"MIG single, 2 x 7 x 1g.10gb",
                 inventory({with_mig(a100(0), seven_1g10gb()), with_mig(a100(1), seven_1g10gb())}),
                 api::MIGStrategy::single,
                 {},
                 "",
                 with(kTwoMigA100, {
                                       {"nvidia.com/mig.strategy", "single"},
                                       {"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb"},
                                       {"nvidia.com/gpu.count", "14"},
                                       {"nvidia.com/gpu.replicas", "1"},
                                       {"nvidia.com/gpu.memory", "9728"},
                                       {"nvidia.com/gpu.slices.gi", "1"},
                                       {"nvidia.com/gpu.slices.ci", "1"},
                                   }),
                 {{"nvidia.com/gpu", 14}}});
  out.push_back({"MIG single with several profiles: GFD's invalid labels, the plugin refuses",
                 inventory(a100_mixed_layout()),
                 api::MIGStrategy::single,
                 {},
                 "",
                 with(kTwoMigA100, {
                                       {"nvidia.com/mig.strategy", "single"},
                                       {"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB-MIG-INVALID"},
                                       {"nvidia.com/gpu.count", "0"},
                                       {"nvidia.com/gpu.replicas", "0"},
                                       {"nvidia.com/gpu.sharing-strategy", ""},
                                       {"nvidia.com/gpu.memory", "0"},
                                   }),
                 {}});
  out.push_back({"MIG single with MIG on and off: invalid; the whole-GPU labels describe the MIG-off GPU",
                 inventory({with_mig(a100(0), seven_1g10gb()), a100(1)}),
                 api::MIGStrategy::single,
                 {},
                 "",
                 with(whole_gpus("NVIDIA-A100-SXM4-80GB-MIG-INVALID", 0, "0", "ampere", 8, 0, true, "single"),
                      {{"nvidia.com/gpu.replicas", "0"},
                       {"nvidia.com/gpu.sharing-strategy", ""},
                       {"gpupool.io/gpu-model", "a100-sxm4-80gb"}}),
                 {}});
  out.push_back({"MIG single on a node without MIG: whole GPUs", inventory(times(8, a100)), api::MIGStrategy::single,
                 {}, "", with(k8xA100, {{"nvidia.com/mig.strategy", "single"}}), {{"nvidia.com/gpu", 8}}});
  out.push_back({"time-slicing x4", inventory(times(8, a100)), kMixed, time_slicing(4, false), "",
                 with(k8xA100, {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB-SHARED"},
                                {"nvidia.com/gpu.replicas", "4"},
                                {"nvidia.com/gpu.sharing-strategy", "time-slicing"}}),
                 {{"nvidia.com/gpu", 32}}});
  out.push_back({"time-slicing x4, renameResources: no -SHARED, nvidia.com/gpu.shared", inventory(times(8, a100)), kMixed,
                 time_slicing(4, true), "",
                 with(k8xA100, {{"nvidia.com/gpu.replicas", "4"}, {"nvidia.com/gpu.sharing-strategy", "time-slicing"}}),
                 {{"nvidia.com/gpu.shared", 32}}});
  out.push_back({"time-slicing x2 with MIG mixed: the MIG types are shared, MIG-on GPUs are not",
                 inventory(a100_mixed_layout()), api::MIGStrategy::mixed, time_slicing(2, false), "",
                 with(with(with(with(kTwoMigA100, {{"nvidia.com/mig.strategy", "mixed"}}),
                                mig_type("3g.40gb", 1, "40192", 3, "2", "time-slicing", true)),
                           mig_type("1g.10gb", 7, "9728", 1, "2", "time-slicing", true)),
                      mig_type("1g.10gb.me", 1, "9728", 1, "2", "time-slicing", true)),
                 {{"nvidia.com/mig-3g.40gb", 2}, {"nvidia.com/mig-1g.10gb", 14}, {"nvidia.com/mig-1g.10gb.me", 2}}});
  out.push_back({"time-slicing x2 renamed with MIG mixed: <name>.shared",
                 inventory(a100_mixed_layout()), api::MIGStrategy::mixed, time_slicing(2, true), "",
                 with(with(with(with(kTwoMigA100, {{"nvidia.com/mig.strategy", "mixed"}}),
                                mig_type("3g.40gb", 1, "40192", 3, "2", "time-slicing")),
                           mig_type("1g.10gb", 7, "9728", 1, "2", "time-slicing")),
                      mig_type("1g.10gb.me", 1, "9728", 1, "2", "time-slicing")),
                 {{"nvidia.com/mig-3g.40gb.shared", 2},
                  {"nvidia.com/mig-1g.10gb.shared", 14},
                  {"nvidia.com/mig-1g.10gb.me.shared", 2}}});
  out.push_back({"MPS x4 on T4s (single)", inventory(times(4, t4)), api::MIGStrategy::single, mps(4), "",
                 with(whole_gpus("Tesla-T4-SHARED", 4, "15360", "turing", 7, 5, false, "single"),
                      {{"nvidia.com/gpu.replicas", "4"},
                       {"nvidia.com/gpu.sharing-strategy", "mps"},
                       {"nvidia.com/mps.capable", "true"},
                       {"gpupool.io/gpu-model", "t4-16gb"}}),
                 {{"nvidia.com/gpu", 16}}});
  out.push_back({"MPS with mig-strategy mixed: read as single", inventory(times(4, t4)),
                 api::MIGStrategy::mixed, mps(4), "",
                 with(whole_gpus("Tesla-T4-SHARED", 4, "15360", "turing", 7, 5, false, "mixed"),
                      {{"nvidia.com/gpu.replicas", "4"},
                       {"nvidia.com/gpu.sharing-strategy", "mps"},
                       {"nvidia.com/mps.capable", "true"},
                       {"gpupool.io/gpu-model", "t4-16gb"}}),
                 {{"nvidia.com/gpu", 16}}});
  out.push_back({"MPS with MIG devices: the plugin refuses, not MPS-capable",
                 inventory({with_mig(a100(0), seven_1g10gb()), with_mig(a100(1), seven_1g10gb())}),
                 api::MIGStrategy::single,
                 mps(2),
                 "",
                 with(kTwoMigA100, {
                                       {"nvidia.com/mig.strategy", "single"},
                                       {"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB-MIG-1g.10gb-SHARED"},
                                       {"nvidia.com/gpu.count", "14"},
                                       {"nvidia.com/gpu.replicas", "2"},
                                       {"nvidia.com/gpu.sharing-strategy", "mps"},
                                       {"nvidia.com/gpu.memory", "9728"},
                                       {"nvidia.com/gpu.slices.gi", "1"},
                                       {"nvidia.com/gpu.slices.ci", "1"},
                                   }),
                 {}});
  out.push_back({"T4 (no MIG)", inventory(times(2, t4)), kMixed, {}, "",
                 with(whole_gpus("Tesla-T4", 2, "15360", "turing", 7, 5, false, "mixed"),
                      {{"gpupool.io/gpu-model", "t4-16gb"}}),
                 {{"nvidia.com/gpu", 2}}});
  out.push_back({"8xH100", inventory(times(8, h100)), kMixed, {}, "",
                 with(whole_gpus("NVIDIA-H100-80GB-HBM3", 8, "81559", "hopper", 9, 0, true, "mixed"),
                      {{"gpupool.io/gpu-model", "h100-sxm5-80gb"}}),
                 {{"nvidia.com/gpu", 8}}});
  {
    std::vector<GpuInfo> gpus;
    for (int i = 0; i < 8; ++i) gpus.push_back(mi300x(i, "CPX", "NPS4"));
    out.push_back({"8xMI300X CPX/NPS4: 64 logical GPUs of 48G", inventory(gpus, "6.10.5", ""), kMixed, {}, "",
                   kMi300xCpxNps4, {{"amd.com/gpu", 64}}});
  }
  {
    std::vector<GpuInfo> gpus;
    for (int i = 0; i < 8; ++i) gpus.push_back(mi300x(i, "SPX", "NPS1"));
    out.push_back({"8xMI300X SPX/NPS1", inventory(gpus, "6.10.5", ""), kMixed, {}, "",
                   with(kMi300xCpxNps4, {{"amd.com/gpu.vram", "192G"}, {"amd.com/gpu.compute-memory-partition", "spx_nps1"}}),
                   {{"amd.com/gpu", 8}}});
  }
  {
    // Two MI300X in CPX, one in SPX: values differ -> amd.com/gpu.<kind>.<value>=<logical GPUs>.
    std::vector<GpuInfo> gpus = {mi300x(0, "CPX", "NPS4"), mi300x(1, "CPX", "NPS4"), mi300x(2, "SPX", "NPS1")};
    Labels l = kMi300xCpxNps4;
    l.erase("amd.com/gpu.vram");
    l.erase("amd.com/gpu.compute-memory-partition");
    l["amd.com/gpu.vram.48G"] = "16";
    l["amd.com/gpu.vram.192G"] = "1";
    out.push_back({"MI300X in different partition modes", inventory(gpus, "6.10.5", ""), kMixed, {}, "", l,
                   {{"amd.com/gpu", 17}}});
  }
  {
    GpuInfo mi210;
    mi210.vendor = gpu::Vendor::amd;
    mi210.name = "AMD Instinct MI210";
    mi210.catalog_id = "mi210-64gb";
    mi210.pci_device_id = 0x740F;
    mi210.memory_mib = 65520;
    out.push_back({"MI210: no partition modes", inventory({mi210, mi210}, "6.10.5", ""), kMixed, {}, "",
                   {{"amd.com/gpu.family", "AI"},
                    {"amd.com/gpu.device-id", "740f"},
                    {"amd.com/gpu.product-name", "AMD_Instinct_MI210"},
                    {"amd.com/gpu.vram", "64G"},
                    {"amd.com/gpu.driver-version", "6.10.5"},
                    {"amd.com/gpu.compute-partitioning-supported", "false"},
                    {"amd.com/gpu.memory-partitioning-supported", "false"},
                    {"gpupool.io/gpu-model", "mi210-64gb"}},
                   {{"amd.com/gpu", 2}}});
  }
  out.push_back({"mixed models: labels describe the lowest-index GPU with MIG off, count its model only",
                 inventory({with_mig(a100(0), seven_1g10gb()), h100(1), h100(2), a100(3)}),
                 api::MIGStrategy::mixed,
                 {},
                 "",
                 with(with(whole_gpus("NVIDIA-H100-80GB-HBM3", 2, "81559", "hopper", 9, 0, true, "mixed"),
                           {{"gpupool.io/gpu-model", "h100-sxm5-80gb"}}),
                      mig_type("1g.10gb", 7, "9728", 1)),
                 {{"nvidia.com/gpu", 3}, {"nvidia.com/mig-1g.10gb", 7}}});
  out.push_back({"empty inventory", inventory({}), kMixed, time_slicing(4, false), "cfg", {}, {}});
  {
    GpuInfo unknown = nvidia(0, "NVIDIA Foo 9000", "", 0x9999, 12345, 0, 0, false);
    Labels l = whole_gpus("NVIDIA-Foo-9000", 1, "12345", "", 0, 0, false, "mixed");
    l.erase("nvidia.com/gpu.family");
    l.erase("nvidia.com/gpu.compute.major");
    l.erase("nvidia.com/gpu.compute.minor");
    out.push_back({"unknown model: no gpupool.io/gpu-model, no family without a compute capability",
                   inventory({unknown}), kMixed, {}, "", l, {{"nvidia.com/gpu", 1}}});
  }
  {
    GpuInfo unknown = nvidia(0, "NVIDIA Bar 10", "", 0x9998, 1000, 10, 0, false);
    out.push_back({"unknown model with compute capability 10.0", inventory({unknown}), kMixed, {}, "",
                   whole_gpus("NVIDIA-Bar-10", 1, "1000", "blackwell", 10, 0, false, "mixed"),
                   {{"nvidia.com/gpu", 1}}});
  }
  {
    // Compute capability unknown: the catalog's architecture, GFD's spelling.
    GpuInfo l4 = nvidia(0, "NVIDIA L4", "l4-24gb", 0x27B8, 23034, 0, 0, false);
    Labels l = whole_gpus("NVIDIA-L4", 1, "23034", "ada-lovelace", 0, 0, false, "mixed");
    l.erase("nvidia.com/gpu.compute.major");
    l.erase("nvidia.com/gpu.compute.minor");
    l["gpupool.io/gpu-model"] = "l4-24gb";
    out.push_back({"no compute capability: family from the catalog", inventory({l4}), kMixed, {}, "", l,
                   {{"nvidia.com/gpu", 1}}});
  }
  {
    // A name with characters GFD drops, a "X.Y" driver, a plugin config
    // name that is no valid label value.
    GpuInfo odd = nvidia(0, "NVIDIA  GeForce RTX 4090 (Founders/Edition) \xE2\x84\xA2", "", 0x2684, 24564, 8, 9, false);
    Labels l = with(whole_gpus("NVIDIA-GeForce-RTX-4090-FoundersEdition", 1, "24564", "ada-lovelace", 8, 9, false, "mixed"),
                    {{"nvidia.com/device-plugin.config", "my-config"}});
    for (const auto& [k, v] : kVersions) l.erase(k);
    l = with(l, {{"nvidia.com/cuda.driver.major", "455"},
                 {"nvidia.com/cuda.driver.minor", "06"},
                 {"nvidia.com/cuda.driver.rev", ""},
                 {"nvidia.com/cuda.driver-version.major", "455"},
                 {"nvidia.com/cuda.driver-version.minor", "06"},
                 {"nvidia.com/cuda.driver-version.revision", ""},
                 {"nvidia.com/cuda.driver-version.full", "455.06"}});
    out.push_back({"label values are sanitised", inventory({odd}, "455.06", ""), kMixed, {}, "my config!", l,
                   {{"nvidia.com/gpu", 1}}});
  }
  return out;
}

class NodeLabelsTable : public ::testing::TestWithParam<Case> {};

TEST_P(NodeLabelsTable, LabelsAndResources) {
  const Case& c = GetParam();
  LabelInputs in;
  in.inventory = &c.inventory;
  in.mig_strategy = c.strategy;
  in.sharing = c.sharing;
  in.device_plugin_config = c.plugin_config;
  in.catalog = &gpu::Catalog::builtin();
  EXPECT_EQ(node_labels(in), c.labels);
  EXPECT_EQ(extended_resources(in), c.resources);
}

// Whatever node_labels yields is a valid label the agent owns; whatever
// extended_resources yields is a resource it owns.
TEST_P(NodeLabelsTable, EverythingProducedIsValidAndOwned) {
  const Case& c = GetParam();
  LabelInputs in;
  in.inventory = &c.inventory;
  in.mig_strategy = c.strategy;
  in.sharing = c.sharing;
  in.device_plugin_config = c.plugin_config;
  in.catalog = &gpu::Catalog::builtin();
  const std::regex value("^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$");
  const std::regex name("^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$");
  for (const auto& [k, v] : node_labels(in)) {
    SCOPED_TRACE(k);
    EXPECT_TRUE(is_agent_owned_label(k));
    EXPECT_LE(v.size(), 63u);
    EXPECT_TRUE(std::regex_match(v, value)) << v;
    std::string n = k.substr(k.find('/') + 1);
    EXPECT_LE(n.size(), 63u);
    EXPECT_TRUE(std::regex_match(n, name));
  }
  for (const auto& [r, count] : extended_resources(in)) {
    EXPECT_TRUE(is_agent_owned_resource(r)) << r;
    EXPECT_GT(count, 0) << r;
  }
}

// "8xA100-80GB, no MIG" -> "c0_8xA100_80GB_no_MIG".
std::string test_name(const ::testing::TestParamInfo<Case>& p) {
  std::string out = "c" + std::to_string(p.index) + "_";
  for (char c : p.param.name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += c;
    } else if (out.back() != '_') {
      out += '_';
    }
    if (out.size() >= 60) break;
  }
  while (out.back() == '_') out.pop_back();
  return out;
}

INSTANTIATE_TEST_SUITE_P(Nodes, NodeLabelsTable, ::testing::ValuesIn(cases()), test_name);

TEST(NodeLabels, NoInventoryNoLabels) {
  LabelInputs in;
  in.device_plugin_config = "cfg";
  EXPECT_TRUE(node_labels(in).empty());
  EXPECT_TRUE(extended_resources(in).empty());
}

TEST(NodeLabels, WithoutCatalogNoModelLabelNorMigSizes) {
  Inventory inv = inventory({with_mig(a100(0), seven_1g10gb())});
  LabelInputs in;
  in.inventory = &inv;
  Labels l = node_labels(in);
  EXPECT_EQ(l.count("gpupool.io/gpu-model"), 0u);
  EXPECT_EQ(l.count("nvidia.com/mig-1g.10gb.memory"), 0u);
  EXPECT_EQ(l.at("nvidia.com/mig-1g.10gb.slices.gi"), "1");  // from the profile name
  EXPECT_EQ(l.at("nvidia.com/mig-1g.10gb.count"), "7");
}

TEST(NodeLabels, MigMemoryIsWhatTheGpuReportsOverTheCatalog) {
  // The driver reports 1g.10gb at 9856 MiB where the catalog says 9728: the GPU wins.
  auto instances = seven_1g10gb();
  for (auto& i : instances) i.memory_mib = 9856;
  Inventory inv = inventory({with_mig(a100(0), instances)});
  LabelInputs in;
  in.inventory = &inv;
  in.catalog = &gpu::Catalog::builtin();
  EXPECT_EQ(node_labels(in).at("nvidia.com/mig-1g.10gb.memory"), "9856");
  in.mig_strategy = api::MIGStrategy::single;
  EXPECT_EQ(node_labels(in).at("nvidia.com/gpu.memory"), "9856");
  // Without a reported size, still the catalog's.
  Inventory plain = inventory({with_mig(a100(0), seven_1g10gb())});
  in.inventory = &plain;
  in.mig_strategy = api::MIGStrategy::mixed;
  EXPECT_EQ(node_labels(in).at("nvidia.com/mig-1g.10gb.memory"), "9728");
  // With neither (no catalog), no size at all.
  in.catalog = nullptr;
  in.inventory = &inv;
  EXPECT_EQ(node_labels(in).at("nvidia.com/mig-1g.10gb.memory"), "9856");
}

TEST(NodeLabels, LongProductNameIsCutToAValidValue) {
  GpuInfo g = nvidia(0, "NVIDIA " + std::string(70, 'X') + " - Edition", "", 0x1, 1, 8, 0, false);
  Inventory inv = inventory({g});
  LabelInputs in;
  in.inventory = &inv;
  EXPECT_EQ(node_labels(in).at("nvidia.com/gpu.product"), "NVIDIA-" + std::string(56, 'X'));
}

TEST(NodeLabels, DriverVersionOfFourPartsGivesNoDriverLabels) {
  Inventory inv = inventory({t4(0)}, "1.2.3.4", "");
  LabelInputs in;
  in.inventory = &inv;
  Labels l = node_labels(in);
  for (const auto& [k, v] : l) EXPECT_EQ(k.rfind("nvidia.com/cuda.", 0), std::string::npos) << k;
}

}  // namespace
}  // namespace gpupool::node
