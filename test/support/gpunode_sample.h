// A GPUNode as an agent reports it: an A100 split into MIG instances and an
// MI300X in compute partitions, with what a real agent writes and the
// controller's store leaves out (UUIDs, PCI addresses, placements, instance
// IDs, the interconnect, the CUDA version, managedFields), a failed
// operation and a degraded GPU. For the tests of how the controller keeps
// GPUNodes (test/unit/stored, test/unit/controller).
#pragma once

#include "gpupool/api/gpunode.h"

namespace gpupool::test {

inline constexpr const char* kReportedGpuNode = R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUNode",
  "metadata":{"name":"n1","resourceVersion":"7","generation":3,
    "managedFields":[{"manager":"gpupool-agent","operation":"Update"}]},
  "spec":{"nodeName":"n1","pool":"a100","disruptionAllowed":true,"driver":{"version":"580.82.07"},
    "partitioning":{"strategy":"mixed","mig":[{"index":0,"enabled":true,"instances":[{"profile":"3g.40gb"},{"profile":"1g.10gb"}]}]},
    "sharing":{"timeSlicing":{"replicas":4}}},
  "status":{"observedGeneration":3,"gpuCount":2,"driverVersion":"580.82.07","cudaVersion":"13.0",
    "conditions":[
      {"type":"Ready","status":"False","observedGeneration":3,"lastTransitionTime":"2026-11-28T20:00:00Z",
       "reason":"Updating","message":"a change is in progress"},
      {"type":"Healthy","status":"False","observedGeneration":3,"lastTransitionTime":"2026-11-28T19:00:00Z",
       "reason":"GpuUnhealthy","message":"GPU 1: XID 79"}],
    "gpus":[
      {"index":0,"uuid":"GPU-5a3c","model":"NVIDIA A100-SXM4-80GB","catalogID":"a100-sxm4-80gb","vendor":"nvidia",
       "memoryMiB":81920,"pciBusID":"00000000:07:00.0","health":"Healthy",
       "partition":{"capable":true,"migMode":"Enabled","instances":[
         {"profile":"3g.40gb","placement":0,"gpuInstanceID":1,"uuid":"MIG-1a","memoryMiB":40192},
         {"profile":"1g.10gb","placement":4,"gpuInstanceID":9,"uuid":"MIG-1b","memoryMiB":9728}]}},
      {"index":1,"uuid":"GPU-77b1","model":"AMD Instinct MI300X","catalogID":"mi300x","vendor":"amd",
       "memoryMiB":196608,"health":"Degraded","healthReasons":["XID 79"],
       "partition":{"capable":true,"computePartition":"CPX","memoryPartition":"NPS4"}}],
    "operations":[{"type":"Partition","phase":"Failed","observedGeneration":3,"reason":"ApplyFailed",
      "message":"nvidia-smi mig -cgi: insufficient resources","lastTransitionTime":"2026-11-28T20:00:00Z"}],
    "interconnect":[{"from":0,"to":1,"type":"NVLink","links":12}],
    "lastHeartbeatTime":"2026-11-28T20:01:00Z"}})";

// A status as the controller keeps it: less what its record leaves out.
inline api::GPUNodeStatus as_stored(api::GPUNodeStatus s) {
  s.cuda_version.clear();
  s.interconnect.clear();
  for (auto& gpu : s.gpus) {
    gpu.uuid.clear();
    gpu.pci_bus_id.clear();
    for (auto& instance : gpu.partition.instances) {
      instance.uuid.clear();
      instance.placement = 0;
      instance.gpu_instance_id = 0;
    }
  }
  return s;
}

}  // namespace gpupool::test
