// JSON fields of GPUPool (gpupool.h).
#include "object_codec.h"
#include "shared_codecs.h"

namespace gpupool::api {

GPUPOOL_API_DECLARE_STRUCT_CODEC(MIGDeviceLayout)
GPUPOOL_API_DECLARE_STRUCT_CODEC(MIGPartitioning)
GPUPOOL_API_DECLARE_STRUCT_CODEC(Partitioning)
GPUPOOL_API_DECLARE_STRUCT_CODEC(GPUPoolSpec)
GPUPOOL_API_DECLARE_STRUCT_CODEC(NodeCounts)
GPUPOOL_API_DECLARE_STRUCT_CODEC(RolloutStatus)
GPUPOOL_API_DECLARE_STRUCT_CODEC(GPUPoolStatus)

template <class V, Like<MIGDeviceLayout> T>
void fields(V& v, T& d) {
  v.optional("gpus", d.gpus);
  v.required("profiles", d.profiles);
}

template <class V, Like<MIGPartitioning> T>
void fields(V& v, T& m) {
  v.always("strategy", m.strategy);
  v.optional("layout", m.layout);
  v.optional("devices", m.devices);
}

template <class V, Like<Partitioning> T>
void fields(V& v, T& p) {
  v.optional("nvidia", p.nvidia);
  v.optional("amd", p.amd);
}

template <class V, Like<GPUPoolSpec> T>
void fields(V& v, T& s) {
  v.required("nodeSelector", s.node_selector);
  v.optional("priority", s.priority);
  v.always("vendor", s.vendor);
  v.optional("policyRef", s.policy_ref);
  v.optional("paused", s.paused);
  v.optional("driver", s.driver);
  v.optional("partitioning", s.partitioning);
  v.always("sharing", s.sharing);
  v.always("monitoring", s.monitoring);
  v.optional("nodeLabels", s.node_labels);
  v.optional("nodeTaints", s.node_taints);
}

template <class V, Like<NodeCounts> T>
void fields(V& v, T& n) {
  v.optional("total", n.total);
  v.optional("ready", n.ready);
  v.optional("updating", n.updating);
  v.optional("failed", n.failed);
  v.optional("conflicted", n.conflicted);
}

template <class V, Like<RolloutStatus> T>
void fields(V& v, T& r) {
  v.optional("targetVersion", r.target_version);
  v.optional("updated", r.updated);
  v.optional("pending", r.pending);
  v.optional("failed", r.failed);
  v.optional("paused", r.paused);
  v.optional("message", r.message);
}

template <class V, Like<GPUPoolStatus> T>
void fields(V& v, T& s) {
  v.optional("observedGeneration", s.observed_generation);
  v.optional("conditions", s.conditions);
  v.always("nodes", s.nodes);
  v.optional("capacity", s.capacity);
  v.optional("granted", s.granted);
  v.optional("rollout", s.rollout);
}

template <class V, Like<GPUPool> T>
void fields(V& v, T& o) {
  v.optional("metadata", o.metadata);
  v.required("spec", o.spec);
  v.optional("status", o.status);
}

GPUPOOL_API_STRUCT_CODEC(MIGDeviceLayout)
GPUPOOL_API_STRUCT_CODEC(MIGPartitioning)
GPUPOOL_API_STRUCT_CODEC(Partitioning)
GPUPOOL_API_STRUCT_CODEC(GPUPoolSpec)
GPUPOOL_API_STRUCT_CODEC(NodeCounts)
GPUPOOL_API_STRUCT_CODEC(RolloutStatus)
GPUPOOL_API_STRUCT_CODEC(GPUPoolStatus)
GPUPOOL_API_KIND_CODEC(GPUPool, gpupool)

}  // namespace gpupool::api
