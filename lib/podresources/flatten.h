// Private to lib/podresources: the kubelet's List answer as plain values
// (pod_devices.h): device plugin allocations with ids, DRA devices with a
// name or CDI devices; containers and claims holding none are left out.
// Header-only and free of gRPC, so the fuzz target (test/fuzz) can run it on
// protobuf messages alone.
#pragma once

#include "gpupool/podresources/pod_devices.h"
#include "podresources/v1/api.pb.h"

namespace gpupool::podresources::detail {

inline ContainerDevicesList flatten(const v1::ListPodResourcesResponse& response) {
  ContainerDevicesList out;
  for (const auto& pod : response.pod_resources()) {
    for (const auto& container : pod.containers()) {
      for (const auto& devices : container.devices()) {
        if (devices.device_ids().empty()) continue;
        ContainerDevices c;
        c.namespace_ = pod.namespace_();
        c.pod = pod.name();
        c.container = container.name();
        c.resource_name = devices.resource_name();
        c.device_ids.assign(devices.device_ids().begin(), devices.device_ids().end());
        out.push_back(std::move(c));
      }
      for (const auto& dynamic : container.dynamic_resources()) {
        for (const auto& claimed : dynamic.claim_resources()) {
          ContainerDevices c;
          c.namespace_ = pod.namespace_();
          c.pod = pod.name();
          c.container = container.name();
          c.source = DeviceSource::dra;
          c.resource_name = claimed.driver_name();
          if (!claimed.device_name().empty()) c.device_ids.push_back(claimed.device_name());
          c.claim_namespace = dynamic.claim_namespace();
          c.claim_name = dynamic.claim_name();
          c.pool_name = claimed.pool_name();
          for (const auto& cdi : claimed.cdi_devices()) c.cdi_devices.push_back(cdi.name());
          if (c.device_ids.empty() && c.cdi_devices.empty()) continue;
          out.push_back(std::move(c));
        }
      }
    }
  }
  return out;
}

}  // namespace gpupool::podresources::detail
