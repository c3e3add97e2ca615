// What the kubelet's pod-resources API says each container holds, as plain
// values (no gRPC or protobuf type): what lister.h returns and attribution.h
// reads.
#pragma once

#include <string>
#include <vector>

namespace gpupool::podresources {

// Where an allocation came from.
enum class DeviceSource {
  device_plugin,  // ContainerResources.devices: a device plugin's extended resource
  dra,            // ContainerResources.dynamic_resources: a DRA claim's device
};

// One container's devices of one resource (device plugin) or one allocated
// DRA device.
struct ContainerDevices {
  std::string namespace_;
  std::string pod;
  std::string container;
  // Device plugin: the extended resource, "nvidia.com/gpu",
  // "nvidia.com/mig-1g.10gb", "amd.com/gpu". DRA: the driver name,
  // "gpu.nvidia.com".
  std::string resource_name;
  // Device plugin: the ids as the plugin advertised them to the kubelet (see
  // attribution.h for what GPU plugins send). DRA: the device name within its
  // pool ("gpu-0"), one per entry.
  std::vector<std::string> device_ids;
  DeviceSource source = DeviceSource::device_plugin;
  // DRA only: the claim that holds the device, the driver's pool, and the CDI
  // devices ("vendor.com/class=name") the device maps to.
  std::string claim_namespace;
  std::string claim_name;
  std::string pool_name;
  std::vector<std::string> cdi_devices;

  bool operator==(const ContainerDevices&) const = default;
};

using ContainerDevicesList = std::vector<ContainerDevices>;

}  // namespace gpupool::podresources
