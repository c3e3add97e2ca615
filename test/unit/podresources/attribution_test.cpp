// attribute(): which containers use which GPU and MIG instance, for every id
// form the GPU device plugins send (see attribution.h), against a table.
#include <gtest/gtest.h>

#include "gpupool/podresources/attribution.h"

namespace gpupool::podresources {
namespace {

const std::string kUuid0 = "GPU-8f3c1a52-6d1e-4c7b-9a2f-0e1d2c3b4a50";
const std::string kUuid1 = "GPU-1b2c3d4e-5f60-4718-8293-a4b5c6d7e8f9";
const std::string kMigA = "MIG-5d2f0a1b-3c4d-5e6f-7a8b-9c0d1e2f3a4b";
const std::string kMigB = "MIG-0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d";

backend::MigInstance mig(int gi, std::string uuid) {
  backend::MigInstance inst;
  inst.profile = "1g.10gb";
  inst.gpu_instance_id = gi;
  inst.compute_instance_id = 0;
  inst.uuid = std::move(uuid);
  return inst;
}

// GPU 0: whole NVIDIA GPU. GPU 1: MIG, instances 1 and 2 with UUIDs, 9 with
// none known. GPU 2: AMD, known by its PCI bus id.
std::vector<backend::GpuInfo> node_gpus() {
  backend::GpuInfo g0;
  g0.index = 0;
  g0.uuid = kUuid0;
  g0.pci_bus_id = "00000000:07:00.0";
  backend::GpuInfo g1;
  g1.index = 1;
  g1.uuid = kUuid1;
  g1.pci_bus_id = "00000000:0F:00.0";
  g1.mig_capable = true;
  g1.mig = {backend::MigMode::enabled, backend::MigMode::enabled};
  g1.instances = {mig(1, kMigA), mig(2, kMigB), mig(9, "")};
  backend::GpuInfo g2;
  g2.index = 2;
  g2.vendor = gpu::Vendor::amd;
  g2.pci_bus_id = "0000:c3:00.0";
  return {g0, g1, g2};
}

ContainerDevices held_in(const std::string& ns, const std::string& pod, const std::string& container,
                         const std::string& resource, std::vector<std::string> ids) {
  ContainerDevices c;
  c.namespace_ = ns;
  c.pod = pod;
  c.container = container;
  c.resource_name = resource;
  c.device_ids = std::move(ids);
  return c;
}

ContainerDevices held(const std::string& pod, const std::string& container, const std::string& resource,
                      std::vector<std::string> ids) {
  return held_in("ns", pod, container, resource, std::move(ids));
}

ContainerDevices dra(const std::string& pod, std::string device, std::vector<std::string> cdi) {
  ContainerDevices c = held(pod, "main", "gpu.nvidia.com", {std::move(device)});
  c.source = DeviceSource::dra;
  c.claim_namespace = "ns";
  c.claim_name = "claim";
  c.pool_name = "node-1";
  c.cdi_devices = std::move(cdi);
  return c;
}

PodRef user(const std::string& pod, const std::string& container = "c") { return {"ns", pod, container}; }

TEST(Attribute, Table) {
  using Gpus = std::map<int, std::vector<PodRef>>;
  using Migs = std::map<MigInstanceKey, std::vector<PodRef>>;
  struct Row {
    std::string name;
    ContainerDevicesList held;
    Gpus gpus;
    Migs migs;
  };
  const std::vector<Row> rows = {
      {"nothing held", {}, {}, {}},
      {"whole GPU by UUID", {held("p", "c", "nvidia.com/gpu", {kUuid0})}, {{0, {user("p")}}}, {}},
      {"UUID in another case", {held("p", "c", "nvidia.com/gpu", {"gpu-8F3C1A52-6D1E-4C7B-9A2F-0E1D2C3B4A50"})},
       {{0, {user("p")}}}, {}},
      {"two GPUs in one container", {held("p", "c", "nvidia.com/gpu", {kUuid1, kUuid0})},
       {{0, {user("p")}}, {1, {user("p")}}}, {}},
      {"MIG instance by its UUID", {held("p", "c", "nvidia.com/mig-1g.10gb", {kMigA})}, {}, {{{1, 1}, {user("p")}}}},
      {"MIG instances of two containers",
       {held("p", "a", "nvidia.com/mig-1g.10gb", {kMigA}), held("p", "b", "nvidia.com/mig-1g.10gb", {kMigB})},
       {},
       {{{1, 1}, {user("p", "a")}}, {{1, 2}, {user("p", "b")}}}},
      {"legacy MIG UUID (R450/R460)", {held("p", "c", "nvidia.com/mig-1g.10gb", {"MIG-" + kUuid1 + "/2/0"})}, {},
       {{{1, 2}, {user("p")}}}},
      {"legacy MIG UUID of an instance the GPU does not have",
       {held("p", "c", "nvidia.com/mig-1g.10gb", {"MIG-" + kUuid1 + "/5/0"})}, {}, {}},
      {"legacy MIG UUID names the instance without a known UUID",
       {held("p", "c", "nvidia.com/mig-1g.10gb", {"MIG-" + kUuid1 + "/9/0"})}, {}, {{{1, 9}, {user("p")}}}},
      {"time-sliced replicas: every pod on the GPU",
       {held("p2", "c", "nvidia.com/gpu", {kUuid0 + "::3"}), held("p1", "c", "nvidia.com/gpu", {kUuid0 + "::0"})},
       {{0, {user("p1"), user("p2")}}}, {}},
      {"renamed shared resource", {held("p", "c", "nvidia.com/gpu.shared", {kUuid0 + "::1"})}, {{0, {user("p")}}}, {}},
      {"two replicas of one GPU in one container count once",
       {held("p", "c", "nvidia.com/gpu", {kUuid0 + "::0", kUuid0 + "::1"})}, {{0, {user("p")}}}, {}},
      {"time-sliced MIG instance", {held("p", "c", "nvidia.com/mig-1g.10gb.shared", {kMigB + "::2"})}, {},
       {{{1, 2}, {user("p")}}}},
      {"replica suffix that is not a number", {held("p", "c", "nvidia.com/gpu", {kUuid0 + "::x"})}, {}, {}},
      {"AMD GPU by PCI bus id", {held("p", "c", "amd.com/gpu", {"0000:c3:00.0"})}, {{2, {user("p")}}}, {}},
      {"AMD PCI bus id in capitals, time-sliced", {held("p", "c", "amd.com/gpu", {"0000:C3:00.0-slice-1"})},
       {{2, {user("p")}}}, {}},
      {"PCI bus id against NVML's 8-digit domain", {held("p", "c", "amd.com/gpu", {"0000:0f:00.0"})}, {{1, {user("p")}}},
       {}},
      {"PCI bus id without a domain", {held("p", "c", "amd.com/gpu", {"07:00.0"})}, {{0, {user("p")}}}, {}},
      {"AMD partitioned resource name", {held("p", "c", "amd.com/cpx_nps4", {"0000:c3:00.0"})}, {{2, {user("p")}}}, {}},
      {"unknown ids ignored",
       {held("p", "c", "nvidia.com/gpu", {"GPU-00000000-0000-0000-0000-000000000000", "0", "1:0", ""}),
        held("p", "c", "nvidia.com/mig-1g.10gb", {"MIG-00000000-0000-0000-0000-000000000000", "MIG-GPU-bad"}),
        held("p", "c", "amd.com/gpu", {"amdgpu_xcp_3", "218", "0000:99:00.0", "0000:c3:00.9", "zz:00.0"})},
       {}, {}},
      {"non-GPU resources ignored, even with a GPU's ids",
       {held("p", "c", "example.com/nic", {"0000:07:00.0"}), held("p", "c", "nvidia.com/gpus", {kUuid0}),
        held("p", "c", "cpu", {kUuid1})},
       {}, {}},
      {"DRA device name alone names no GPU", {dra("p", "gpu-0", {"k8s.gpu.nvidia.com/device=gpu-0"})}, {}, {}},
      {"DRA CDI device by UUID", {dra("p", "gpu-0", {"nvidia.com/gpu=" + kUuid0})}, {{0, {user("p", "main")}}}, {}},
      {"DRA CDI device of a MIG instance", {dra("p", "gpu-1-mig-19-0-1", {"nvidia.com/gpu=" + kMigA})}, {},
       {{{1, 1}, {user("p", "main")}}}},
      {"device plugin and DRA users together",
       {held("p1", "c", "nvidia.com/gpu", {kUuid0 + "::0"}), dra("p2", "gpu-0", {"nvidia.com/gpu=" + kUuid0})},
       {{0, {user("p1"), user("p2", "main")}}}, {}},
  };
  const auto gpus = node_gpus();
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    const auto got = attribute(gpus, row.held);
    EXPECT_EQ(got.gpus, row.gpus);
    EXPECT_EQ(got.mig_instances, row.migs);
  }
}

TEST(Attribute, SortedUsersAcrossNamespaces) {
  const ContainerDevicesList list = {
      held_in("team-b", "p", "c", "nvidia.com/gpu", {kUuid0 + "::0"}),
      held_in("team-a", "z", "c", "nvidia.com/gpu", {kUuid0 + "::1"}),
      held_in("team-a", "a", "y", "nvidia.com/gpu", {kUuid0 + "::2"}),
      held_in("team-a", "a", "x", "nvidia.com/gpu", {kUuid0 + "::3"}),
  };
  const auto got = attribute(node_gpus(), list);
  EXPECT_EQ(got.gpu_users(0), (std::vector<PodRef>{{"team-a", "a", "x"}, {"team-a", "a", "y"}, {"team-a", "z", "c"},
                                                   {"team-b", "p", "c"}}));
}

TEST(Attribute, LookupsOfUnusedDevicesAreEmpty) {
  const auto got = attribute(node_gpus(), ContainerDevicesList{held("p", "c", "nvidia.com/mig-1g.10gb", {kMigA})});
  EXPECT_TRUE(got.gpu_users(1).empty());  // a MIG instance's user is not its parent GPU's
  EXPECT_TRUE(got.gpu_users(42).empty());
  EXPECT_TRUE(got.mig_users(1, 2).empty());
  EXPECT_EQ(got.mig_users(1, 1), std::vector<PodRef>{user("p")});
}

}  // namespace
}  // namespace gpupool::podresources
