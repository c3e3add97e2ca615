// The NVML backend's inventory over the fake NVML: identity of every GPU,
// versions, links; nvmlInit once per backend.
#include <gtest/gtest.h>

#include "fake_nvml_fixture.h"

namespace gpupool::backend::nvml_test {
namespace {

using Inventory = gpupool::backend::Inventory;

TEST_F(NvmlBackendTest, InventoryOfTwoA100AndOneH100) {
  auto backend = make();
  EXPECT_EQ(backend->name(), "nvml");
  const Inventory inv = backend->inventory();
  EXPECT_EQ(inv.driver_version, "570.133.20");
  EXPECT_EQ(inv.cuda_version, "12.8");
  ASSERT_EQ(inv.gpus.size(), 3U);

  GpuInfo a100;
  a100.index = 0;
  a100.uuid = "GPU-5ad5a2e1-6b0c-4f5e-8d7a-000000000000";
  a100.name = "NVIDIA A100-SXM4-80GB";
  a100.catalog_id = "a100-sxm4-80gb";
  a100.vendor = gpu::Vendor::nvidia;
  a100.pci_device_id = 0x20B2;
  a100.pci_bus_id = "00000000:07:00.0";
  a100.memory_mib = 81920;
  a100.compute_major = 8;
  a100.compute_minor = 0;
  a100.mig_capable = true;
  a100.mig = {MigMode::disabled, MigMode::disabled};
  EXPECT_EQ(inv.gpus[0], a100);

  EXPECT_EQ(inv.gpus[1].index, 1);
  EXPECT_EQ(inv.gpus[1].uuid, "GPU-5ad5a2e1-6b0c-4f5e-8d7a-000000000001");
  EXPECT_EQ(inv.gpus[1].pci_bus_id, "00000000:0F:00.0");
  EXPECT_EQ(inv.gpus[1].catalog_id, "a100-sxm4-80gb");

  const GpuInfo& h100 = inv.gpus[2];
  EXPECT_EQ(h100.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(h100.catalog_id, "h100-sxm5-80gb");
  EXPECT_EQ(h100.pci_device_id, 0x2330U);
  EXPECT_EQ(h100.pci_bus_id, "00000000:17:00.0");
  EXPECT_EQ(h100.memory_mib, 81559);
  EXPECT_EQ(h100.compute_major, 9);
  EXPECT_EQ(h100.compute_minor, 0);
  EXPECT_TRUE(h100.mig_capable);
  EXPECT_TRUE(h100.instances.empty());

  // The fake's default topology: every pair on one NUMA node, no NVLink.
  const std::vector<GpuLink> links = {{0, 1, LinkKind::same_numa, 0},
                                      {0, 2, LinkKind::same_numa, 0},
                                      {1, 2, LinkKind::same_numa, 0}};
  EXPECT_EQ(inv.links, links);
}

TEST_F(NvmlBackendTest, LinksFromCommonAncestorAndDirectNvLinks) {
  auto backend = make();
  ASSERT_EQ(fake.set_topology(0, 1, 10 /* NVML_TOPOLOGY_SINGLE */), 0);
  ASSERT_EQ(fake.set_topology(0, 2, 50 /* NVML_TOPOLOGY_SYSTEM */), 0);
  ASSERT_EQ(fake.set_topology(1, 2, 30 /* NVML_TOPOLOGY_HOSTBRIDGE */), 0);
  ASSERT_EQ(fake.set_nvlinks(0, 1, 12), 0);
  const Inventory inv = backend->inventory();
  const std::vector<GpuLink> links = {{0, 1, LinkKind::nvlink, 12},
                                      {0, 2, LinkKind::cross_numa, 0},
                                      {1, 2, LinkKind::pcie_host_bridge, 0}};
  EXPECT_EQ(inv.links, links);
  EXPECT_EQ(link_label(inv.links[0]), "NV12");
}

TEST_F(NvmlBackendTest, NvSwitchLinksJoinEveryPair) {
  auto backend = make("h100-sxm5-80gb=3");
  for (int gpu = 0; gpu < 3; ++gpu) ASSERT_EQ(fake.set_nvswitch_links(gpu, 18), 0);
  ASSERT_EQ(fake.set_topology(0, 2, 20 /* NVML_TOPOLOGY_MULTIPLE */), 0);
  const Inventory inv = backend->inventory();
  const std::vector<GpuLink> links = {{0, 1, LinkKind::nvlink, 18},
                                      {0, 2, LinkKind::nvlink, 18},
                                      {1, 2, LinkKind::nvlink, 18}};
  EXPECT_EQ(inv.links, links);
}

TEST_F(NvmlBackendTest, GpuWithoutMig) {
  auto backend = make("t4-16gb");
  const Inventory inv = backend->inventory();
  ASSERT_EQ(inv.gpus.size(), 1U);
  EXPECT_EQ(inv.gpus[0].catalog_id, "t4-16gb");
  EXPECT_EQ(inv.gpus[0].compute_major, 7);
  EXPECT_EQ(inv.gpus[0].compute_minor, 5);
  EXPECT_FALSE(inv.gpus[0].mig_capable);
  EXPECT_EQ(inv.gpus[0].mig, MigModeState{});
  EXPECT_TRUE(inv.links.empty());
}

TEST_F(NvmlBackendTest, EmptyNode) {
  auto backend = make("");
  const Inventory inv = backend->inventory();
  EXPECT_TRUE(inv.gpus.empty());
  EXPECT_TRUE(inv.links.empty());
  EXPECT_TRUE(backend->metrics().empty());
  EXPECT_TRUE(backend->processes().empty());
}

TEST_F(NvmlBackendTest, InitialisesOnceAndShutsDown) {
  auto backend = make();
  EXPECT_EQ(fake.init_count(), 1);
  backend->inventory();
  backend->metrics();
  backend->inventory();
  EXPECT_EQ(fake.call_count("nvmlInit_v2"), 1);
  EXPECT_EQ(fake.call_count("nvmlInit"), 0);
  backend.reset();
  EXPECT_EQ(fake.call_count("nvmlShutdown"), 1);
  EXPECT_EQ(fake.init_count(), 0);
}

TEST_F(NvmlBackendTest, UsesTheNewestVersionOfEachCall) {
  auto backend = make();
  backend->inventory();
  EXPECT_GT(fake.call_count("nvmlDeviceGetPciInfo_v3"), 0);
  EXPECT_EQ(fake.call_count("nvmlDeviceGetPciInfo_v2"), 0);
  EXPECT_EQ(fake.call_count("nvmlSystemGetCudaDriverVersion_v2"), 1);
  EXPECT_GT(fake.call_count("nvmlDeviceGetHandleByIndex_v2"), 0);
  EXPECT_EQ(fake.call_count("nvmlDeviceGetHandleByIndex"), 0);
}

}  // namespace
}  // namespace gpupool::backend::nvml_test
