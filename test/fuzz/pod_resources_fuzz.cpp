// libFuzzer target: any bytes as the kubelet's pod-resources List answer
// (v1.ListPodResourcesResponse, protobuf wire format: ParseFromArray) through
// the agent's conversion (lib/podresources/flatten.h, as list() does) and the
// attribution of GPUs and MIG instances to containers, on a fixed node: an
// A100 with two MIG instances, a T4, an MI300X. Attribution must only name
// devices of the inventory and containers of the answer, keep each user list
// sorted without duplicates, and not depend on the order of the answer.
#include <google/protobuf/stubs/logging.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "flatten.h"
#include "gpupool/podresources/attribution.h"
#include "podresources/v1/api.pb.h"

namespace {

using gpupool::backend::GpuInfo;
using gpupool::podresources::ContainerDevices;
using gpupool::podresources::DeviceSource;
using gpupool::podresources::PodRef;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

std::vector<GpuInfo> node() {
  GpuInfo a100;
  a100.index = 0;
  a100.uuid = "GPU-5b1c2a3e-0d4f-4e8a-9b7c-1a2b3c4d5e6f";
  a100.pci_bus_id = "00000000:07:00.0";
  a100.mig_capable = true;
  a100.instances = {{"3g.40gb", 9, 0, 4, 1, 0, "MIG-0e0f1a2b-3c4d-5e6f-7a8b-9c0d1e2f3a4b", 40192},
                    {"1g.10gb", 19, 4, 1, 7, -1, "", 9728}};
  GpuInfo t4;
  t4.index = 1;
  t4.uuid = "GPU-c0ffee00-1111-2222-3333-444455556666";
  t4.pci_bus_id = "00000000:3B:00.0";
  GpuInfo mi300x;
  mi300x.index = 2;
  mi300x.vendor = gpupool::gpu::Vendor::amd;
  mi300x.pci_bus_id = "0000:c1:00.0";
  return {a100, t4, mi300x};
}

bool is_sorted_unique(const std::vector<PodRef>& users) {
  return !users.empty() && std::adjacent_find(users.begin(), users.end(),
                                              [](const PodRef& a, const PodRef& b) { return !(a < b); }) == users.end();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  google::protobuf::SetLogHandler(nullptr);  // invalid UTF-8 in a string is a parse failure, not a log line
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  v1::ListPodResourcesResponse response;
  if (size > 64 * 1024 * 1024 || !response.ParseFromArray(data, static_cast<int>(size))) return 0;
  const gpupool::podresources::ContainerDevicesList held = gpupool::podresources::detail::flatten(response);
  for (const ContainerDevices& c : held) {
    if (c.source == DeviceSource::device_plugin) {
      check(!c.device_ids.empty() && c.cdi_devices.empty());
    } else {
      check(!c.device_ids.empty() || !c.cdi_devices.empty());
    }
  }

  static const std::vector<GpuInfo> gpus = node();
  const auto users = gpupool::podresources::attribute(gpus, held);
  const auto known = [&](const PodRef& who) {
    return std::any_of(held.begin(), held.end(), [&](const ContainerDevices& c) {
      return c.namespace_ == who.namespace_ && c.pod == who.pod && c.container == who.container;
    });
  };
  for (const auto& [index, list] : users.gpus) {
    check(index >= 0 && index < static_cast<int>(gpus.size()) && is_sorted_unique(list));
    check(std::all_of(list.begin(), list.end(), known));
  }
  for (const auto& [key, list] : users.mig_instances) {
    check(key.gpu_index >= 0 && key.gpu_index < static_cast<int>(gpus.size()) && is_sorted_unique(list));
    const auto& instances = gpus[static_cast<std::size_t>(key.gpu_index)].instances;
    const int gi = key.gpu_instance_id;  // clang 14 cannot capture a structured binding
    check(std::any_of(instances.begin(), instances.end(), [&](const auto& i) { return i.gpu_instance_id == gi; }));
    check(std::all_of(list.begin(), list.end(), known));
  }

  std::vector<ContainerDevices> reversed(held.rbegin(), held.rend());
  const auto again = gpupool::podresources::attribute(gpus, reversed);
  check(again.gpus == users.gpus && again.mig_instances == users.mig_instances);
  return 0;
}
