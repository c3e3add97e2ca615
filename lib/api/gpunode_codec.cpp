// JSON fields of GPUNode (gpunode.h).
#include "object_codec.h"
#include "shared_codecs.h"

namespace gpupool::api {

// Defined in gpupolicy_codec.cpp: spec.health is the policy's HealthRules.
GPUPOOL_API_DECLARE_STRUCT_CODEC(HealthRules)
GPUPOOL_API_DECLARE_STRUCT_CODEC(MIGInstance)
GPUPOOL_API_DECLARE_STRUCT_CODEC(GPUMIGLayout)
GPUPOOL_API_DECLARE_STRUCT_CODEC(NodePartitioning)
GPUPOOL_API_DECLARE_STRUCT_CODEC(GPUNodeSpec)
GPUPOOL_API_DECLARE_STRUCT_CODEC(MIGInstanceStatus)
GPUPOOL_API_DECLARE_STRUCT_CODEC(PartitionStatus)
GPUPOOL_API_DECLARE_STRUCT_CODEC(GPUStatus)
GPUPOOL_API_DECLARE_STRUCT_CODEC(OperationStatus)
GPUPOOL_API_DECLARE_STRUCT_CODEC(GPULink)
GPUPOOL_API_DECLARE_STRUCT_CODEC(GPUNodeStatus)

template <class V, Like<MIGInstance> T>
void fields(V& v, T& i) {
  v.required("profile", i.profile);
  v.optional("placement", i.placement);
}

template <class V, Like<GPUMIGLayout> T>
void fields(V& v, T& g) {
  v.required("index", g.index);
  v.required("enabled", g.enabled);
  v.optional("instances", g.instances);
}

template <class V, Like<NodePartitioning> T>
void fields(V& v, T& p) {
  v.optional("strategy", p.strategy);
  v.optional("mig", p.mig);
  v.optional("amd", p.amd);
}

template <class V, Like<GPUNodeSpec> T>
void fields(V& v, T& s) {
  v.required("nodeName", s.node_name);
  v.optional("pool", s.pool);
  v.optional("driver", s.driver);
  v.always("partitioning", s.partitioning);
  v.always("sharing", s.sharing);
  v.always("monitoring", s.monitoring);
  v.optional("disruptionAllowed", s.disruption_allowed);
  v.always("drain", s.drain);
  v.always("cordonOnFailure", s.cordon_on_failure);
  v.optional("health", s.health);
}

template <class V, Like<MIGInstanceStatus> T>
void fields(V& v, T& i) {
  v.optional("profile", i.profile);
  v.optional("placement", i.placement);
  v.optional("gpuInstanceID", i.gpu_instance_id);
  v.optional("uuid", i.uuid);
  v.optional("memoryMiB", i.memory_mib);
}

template <class V, Like<PartitionStatus> T>
void fields(V& v, T& p) {
  v.optional("capable", p.capable);
  v.optional("migMode", p.mig_mode);
  v.optional("instances", p.instances);
  v.optional("computePartition", p.compute_partition);
  v.optional("memoryPartition", p.memory_partition);
}

template <class V, Like<GPUStatus> T>
void fields(V& v, T& g) {
  v.required("index", g.index);
  v.optional("uuid", g.uuid);
  v.optional("model", g.model);
  v.optional("catalogID", g.catalog_id);
  v.optional("vendor", g.vendor);
  v.optional("memoryMiB", g.memory_mib);
  v.optional("pciBusID", g.pci_bus_id);
  v.always("partition", g.partition);
  v.optional("health", g.health);
  v.optional("healthReasons", g.health_reasons);
}

template <class V, Like<OperationStatus> T>
void fields(V& v, T& o) {
  v.required("type", o.type);
  v.required("phase", o.phase);
  v.optional("observedGeneration", o.observed_generation);
  v.optional("reason", o.reason);
  v.optional("message", o.message);
  v.optional("lastTransitionTime", o.last_transition_time);
}

template <class V, Like<GPULink> T>
void fields(V& v, T& l) {
  v.required("from", l.from);
  v.required("to", l.to);
  v.required("type", l.type);
  v.optional("links", l.links);
}

template <class V, Like<GPUNodeStatus> T>
void fields(V& v, T& s) {
  v.optional("observedGeneration", s.observed_generation);
  v.optional("conditions", s.conditions);
  v.optional("gpuCount", s.gpu_count);
  v.optional("gpus", s.gpus);
  v.optional("driverVersion", s.driver_version);
  v.optional("cudaVersion", s.cuda_version);
  v.optional("operations", s.operations);
  v.optional("interconnect", s.interconnect);
  v.optional("lastHeartbeatTime", s.last_heartbeat_time);
}

template <class V, Like<GPUNode> T>
void fields(V& v, T& o) {
  v.optional("metadata", o.metadata);
  v.required("spec", o.spec);
  v.optional("status", o.status);
}

GPUPOOL_API_STRUCT_CODEC(MIGInstance)
GPUPOOL_API_STRUCT_CODEC(GPUMIGLayout)
GPUPOOL_API_STRUCT_CODEC(NodePartitioning)
GPUPOOL_API_STRUCT_CODEC(GPUNodeSpec)
GPUPOOL_API_STRUCT_CODEC(MIGInstanceStatus)
GPUPOOL_API_STRUCT_CODEC(PartitionStatus)
GPUPOOL_API_STRUCT_CODEC(GPUStatus)
GPUPOOL_API_STRUCT_CODEC(OperationStatus)
GPUPOOL_API_STRUCT_CODEC(GPULink)
GPUPOOL_API_STRUCT_CODEC(GPUNodeStatus)
GPUPOOL_API_KIND_CODEC(GPUNode, gpunode)

}  // namespace gpupool::api
