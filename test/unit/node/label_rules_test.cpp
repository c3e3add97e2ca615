// The building blocks of node_labels: value spelling, GFD's names, AMD
// partition counts, sharing, and which labels and resources the agent owns.
#include <gtest/gtest.h>

#include "gpupool/node/node_labels.h"

namespace gpupool::node {
namespace {

TEST(LabelValue, MakesValidValues) {
  struct Row {
    std::string raw, want;
  };
  for (const Row& r : std::vector<Row>{
           {"NVIDIA-A100-SXM4-80GB", "NVIDIA-A100-SXM4-80GB"},
           {"  my  config ", "my-config"},
           {"my config!", "my-config"},
           {"-._x_.-", "x"},
           {"a/b:c", "abc"},
           {"\xC3\xBC" "ber", "ber"},
           {"570.133.20", "570.133.20"},
           {"", ""},
           {"...", ""},
           {std::string(63, 'a'), std::string(63, 'a')},
           {std::string(62, 'a') + "-b", std::string(62, 'a')},
           {std::string(100, 'z'), std::string(63, 'z')},
       }) {
    EXPECT_EQ(label_value(r.raw), r.want) << r.raw;
  }
}

TEST(GfdSanitise, AsResourceGo) {
  EXPECT_EQ(gfd_sanitise("NVIDIA A100-SXM4-80GB"), "NVIDIA-A100-SXM4-80GB");
  EXPECT_EQ(gfd_sanitise("Tesla T4"), "Tesla-T4");
  EXPECT_EQ(gfd_sanitise("NVIDIA H100 80GB HBM3"), "NVIDIA-H100-80GB-HBM3");
  EXPECT_EQ(gfd_sanitise("  NVIDIA   A10  "), "NVIDIA-A10");
  EXPECT_EQ(gfd_sanitise("RTX (A6000)/x"), "RTX-A6000x");
  EXPECT_EQ(gfd_sanitise("1g.10gb.me"), "1g.10gb.me");
  EXPECT_EQ(gfd_sanitise("a\tb"), "ab");  // the regexp drops the tab first
}

TEST(GfdArchFamily, AsGetArchFamily) {
  struct Row {
    int major, minor;
    std::string want;
  };
  for (const Row& r : std::vector<Row>{{3, 7, "kepler"},
                                       {6, 0, "pascal"},
                                       {7, 0, "volta"},
                                       {7, 5, "turing"},
                                       {8, 0, "ampere"},
                                       {8, 6, "ampere"},
                                       {8, 9, "ada-lovelace"},
                                       {9, 0, "hopper"},
                                       {10, 0, "blackwell"},
                                       {12, 0, "blackwell"},
                                       {4, 0, "undefined"}}) {
    EXPECT_EQ(gfd_arch_family(r.major, r.minor), r.want) << r.major << "." << r.minor;
  }
}

TEST(MigDeviceName, PlusBecomesDot) {
  EXPECT_EQ(mig_device_name("1g.10gb"), "1g.10gb");
  EXPECT_EQ(mig_device_name("1g.10gb+me"), "1g.10gb.me");
  EXPECT_EQ(mig_device_name("1g.12gb+me+gfx"), "1g.12gb.me.gfx");
}

TEST(AmdLogicalGpus, PerComputePartitionMode) {
  const gpu::Catalog& c = gpu::Catalog::builtin();
  const gpu::GpuModel* mi300x = c.find("mi300x-192gb");
  ASSERT_NE(mi300x, nullptr);
  backend::GpuInfo g;
  g.vendor = gpu::Vendor::amd;
  g.name = "AMD Instinct MI300X";
  struct Row {
    std::string mode;
    int want;
  };
  for (const Row& r : std::vector<Row>{{"", 1}, {"SPX", 1}, {"DPX", 2}, {"TPX", 3}, {"QPX", 4}, {"CPX", 8}, {"cpx", 8}}) {
    g.compute_partition = r.mode;
    EXPECT_EQ(amd_logical_gpus(g, mi300x), r.want) << r.mode;
  }
  g.name = "AMD Instinct MI300A";  // 6 XCDs, not in the catalog
  g.compute_partition = "CPX";
  EXPECT_EQ(amd_logical_gpus(g, nullptr), 6);
  g.compute_partition = "TPX";
  EXPECT_EQ(amd_logical_gpus(g, nullptr), 3);
}

TEST(SharingConfig, FromTheApi) {
  api::Sharing s;
  EXPECT_EQ(sharing_config(s).replicas, 1);
  EXPECT_EQ(sharing_config(s).strategy(), "none");

  s.mode = api::SharingMode::time_slicing;
  s.time_slicing = api::TimeSlicing{4, true};
  SharingConfig ts = sharing_config(s);
  EXPECT_EQ(ts.replicas, 4);
  EXPECT_TRUE(ts.renamed);
  EXPECT_FALSE(ts.mps);
  EXPECT_EQ(ts.strategy(), "time-slicing");

  s.time_slicing = api::TimeSlicing{1, true};  // the plugin needs >= 2
  EXPECT_EQ(sharing_config(s).strategy(), "none");
  s.time_slicing.reset();  // invalid object: not shared
  EXPECT_EQ(sharing_config(s).replicas, 1);

  s.mode = api::SharingMode::mps;
  s.mps = api::MPS{3, 50};
  SharingConfig m = sharing_config(s);
  EXPECT_EQ(m.replicas, 3);
  EXPECT_TRUE(m.mps);
  EXPECT_FALSE(m.renamed);
  EXPECT_EQ(m.strategy(), "mps");
}

TEST(AgentOwnedLabel, TheKeysNodeLabelsProduces) {
  for (const char* key : {
           "nvidia.com/gpu.present",
           "nvidia.com/gpu.product",
           "nvidia.com/gpu.count",
           "nvidia.com/gpu.replicas",
           "nvidia.com/gpu.sharing-strategy",
           "nvidia.com/gpu.memory",
           "nvidia.com/gpu.family",
           "nvidia.com/gpu.compute.major",
           "nvidia.com/gpu.compute.minor",
           "nvidia.com/gpu.slices.gi",
           "nvidia.com/gpu.slices.ci",
           "nvidia.com/mig.capable",
           "nvidia.com/mig.strategy",
           "nvidia.com/mps.capable",
           "nvidia.com/device-plugin.config",
           "nvidia.com/cuda.driver.major",
           "nvidia.com/cuda.driver.rev",
           "nvidia.com/cuda.runtime.minor",
           "nvidia.com/cuda.driver-version.full",
           "nvidia.com/cuda.driver-version.revision",
           "nvidia.com/cuda.runtime-version.full",
           "nvidia.com/mig-1g.10gb.count",
           "nvidia.com/mig-1g.10gb.me.product",
           "nvidia.com/mig-3g.47gb.slices.gi",
           "nvidia.com/mig-7g.141gb.sharing-strategy",
           "nvidia.com/mig-1g.5gb.memory",
           "amd.com/gpu.family",
           "amd.com/gpu.family.AI",
           "amd.com/gpu.device-id",
           "amd.com/gpu.product-name.AMD_Instinct_MI300X",
           "amd.com/gpu.vram",
           "amd.com/gpu.vram.48G",
           "amd.com/gpu.driver-version",
           "amd.com/gpu.compute-memory-partition",
           "amd.com/gpu.compute-partitioning-supported",
           "amd.com/gpu.memory-partitioning-supported",
           "gpupool.io/gpu-model",
       }) {
    EXPECT_TRUE(is_agent_owned_label(key)) << key;
  }
}

TEST(AgentOwnedLabel, NotOthersKeys) {
  for (const char* key : {
           // GPU Operator / mig-manager / driver upgrade controller
           "nvidia.com/gpu.deploy.device-plugin",
           "nvidia.com/gpu.deploy.gpu-feature-discovery",
           "nvidia.com/gpu.deploy.operands",
           "nvidia.com/gpu.workload.config",
           "nvidia.com/mig.config",
           "nvidia.com/mig.config.state",
           "nvidia.com/gpu-driver-upgrade-state",
           "nvidia.com/gpu-driver-upgrade-enabled",
           "nvidia.com/cc.mode",
           "nvidia.com/cc.capable",
           "nvidia.com/vgpu.present",
           // GFD labels we do not write
           "nvidia.com/gfd.timestamp",
           "nvidia.com/gpu.machine",
           "nvidia.com/gpu.mode",
           "nvidia.com/gpu.clique",
           "nvidia.com/gpu.imex-domain",
           "nvidia.com/gpu.multiprocessors",
           "nvidia.com/gpu.engines.copy",
           "nvidia.com/mig-1g.10gb.multiprocessors",
           "nvidia.com/mig-1g.10gb.engines.ofa",
           // look-alikes
           "nvidia.com/gpu.productx",
           "nvidia.com/gpu",
           "nvidia.com/mig-",
           "nvidia.com/mig-.count",
           "nvidia.com/mig-foo.count",
           "nvidia.com/cuda.driver",
           "amd.com/gpu",
           "amd.com/gpu.family.",
           "amd.com/gpu.cu-count",
           "amd.com/gpu.simd-count.304",
           "beta.amd.com/gpu.family",
           "beta.amd.com/gpu.family.AI",
           "dcm.amd.com/gpu-config-profile",
           // kubelet, NFD, ours but not node_labels', users'
           "kubernetes.io/hostname",
           "node.kubernetes.io/instance-type",
           "feature.node.kubernetes.io/pci-10de.present",
           "gpupool.io/pool",
           "gpupool.io/skip-drain",
           "team",
       }) {
    EXPECT_FALSE(is_agent_owned_label(key)) << key;
  }
}

TEST(AgentOwnedResource, GpuResourcesOnly) {
  for (const char* name : {"nvidia.com/gpu", "nvidia.com/gpu.shared", "nvidia.com/mig-1g.10gb", "nvidia.com/mig-1g.10gb.me",
                           "nvidia.com/mig-3g.40gb.shared", "amd.com/gpu"}) {
    EXPECT_TRUE(is_agent_owned_resource(name)) << name;
  }
  for (const char* name : {"cpu", "memory", "ephemeral-storage", "hugepages-2Mi", "nvidia.com/mig-", "nvidia.com/gpu.foo",
                           "nvidia.com/vgpu", "amd.com/cpx_nps4", "amd.com/gpu.shared", "example.com/gpu"}) {
    EXPECT_FALSE(is_agent_owned_resource(name)) << name;
  }
}

}  // namespace
}  // namespace gpupool::node
