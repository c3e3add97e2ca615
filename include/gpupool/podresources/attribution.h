// Which pod, namespace and container use each GPU and MIG instance of this
// node, from the kubelet's pod-resources answer (lister.h). Pure: no gRPC,
// no I/O; the agent passes its backend inventory's GPUs as they are.
//
// Only device plugin allocations of GPU resources count
// (quota::is_gpu_resource: nvidia.com/gpu, nvidia.com/gpu.shared,
// nvidia.com/mig-*, amd.com/*, ...); other resources are ignored whatever
// their ids look like. DRA devices (source dra) are matched by the same id
// forms, on the device name and on each CDI device's name after its "=".
//
// Device ids mapped, after one replica suffix is removed: "<id>::<n>"
// (NVIDIA k8s-device-plugin time-slicing and MPS replicas, AnnotatedID in
// internal/rm/devices.go) or "<id>-slice-<n>" (ROCm k8s-device-plugin
// time-slicing, internal/pkg/plugin/timeslice.go):
//   "GPU-<uuid>"                  the GPU with that UUID. NVIDIA's plugin
//                                 always advertises UUIDs to the kubelet
//                                 (BuildDevice sets Device.ID to the UUID;
//                                 deviceIDStrategy=index changes only what
//                                 the container is told).
//   "MIG-<uuid>"                  the MIG instance with that UUID (drivers
//                                 R470 and later), on whichever GPU has it.
//   "MIG-GPU-<uuid>/<gi>/<ci>"    GPU instance <gi> of the GPU "GPU-<uuid>"
//                                 (the MIG UUID form of drivers R450/R460,
//                                 as dcgm-exporter's pod mapper read it).
//   "[<domain>:]<bus>:<dev>.<fn>" the GPU with that PCI bus id, hex, any case,
//                                 domain of any width or absent (0):
//                                 "0000:19:00.0" matches the inventory's
//                                 "00000000:19:00.0". ROCm's plugin names
//                                 each amdgpu PCI device so (the directory
//                                 name under /sys/module/amdgpu/drivers/
//                                 pci:amdgpu/, internal/pkg/amdgpu/amdgpu.go).
// Not mapped, ignored: ROCm's "amdgpu_xcp_<n>" (MI300 compute partitions,
// platform devices with no PCI address or UUID of their own), IOMMU group
// numbers (ROCm's SR-IOV VFs, passed to VMs), bare indices, ids of GPUs or
// instances not in the inventory, MIG UUIDs of instances whose UUID the
// backend does not know, and DRA device names in the drivers' own schemes
// ("gpu-0" is NVIDIA's DRA driver's name for the GPU of minor number 0, not
// of index 0; only the ResourceSlice, not pod-resources, says which GPU it
// is).
//
// A MIG instance's users are reported for the instance only, not for its
// parent GPU. A device several containers hold (time-slicing or MPS replicas,
// DRA shared claims) has every one of them as users.
#pragma once

#include <compare>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "gpupool/backend/backend.h"
#include "gpupool/podresources/pod_devices.h"

namespace gpupool::podresources {

struct PodRef {
  std::string namespace_;
  std::string pod;
  std::string container;
  auto operator<=>(const PodRef&) const = default;
};

struct MigInstanceKey {
  int gpu_index = 0;
  int gpu_instance_id = -1;
  auto operator<=>(const MigInstanceKey&) const = default;
};

struct Attribution {
  // Only devices with users appear; each list sorted, without duplicates.
  std::map<int, std::vector<PodRef>> gpus;  // by GPU index
  std::map<MigInstanceKey, std::vector<PodRef>> mig_instances;

  // The users of one device; empty when none.
  const std::vector<PodRef>& gpu_users(int gpu_index) const;
  const std::vector<PodRef>& mig_users(int gpu_index, int gpu_instance_id) const;
};

Attribution attribute(std::span<const backend::GpuInfo> gpus, std::span<const ContainerDevices> held);

}  // namespace gpupool::podresources
