// JSON fields of the metav1 types (meta.h).
#include "shared_codecs.h"

namespace gpupool::api {

template <class V, Like<ObjectMeta> T>
void fields(V& v, T& m) {
  v.optional("name", m.name);
  v.optional("namespace", m.namespace_);
  v.optional("labels", m.labels);
  v.optional("annotations", m.annotations);
  v.optional("generation", m.generation);
  v.optional("resourceVersion", m.resource_version);
  v.optional("uid", m.uid);
  v.optional("creationTimestamp", m.creation_timestamp);
  v.optional("deletionTimestamp", m.deletion_timestamp);
  v.optional("finalizers", m.finalizers);
}

template <class V, Like<Condition> T>
void fields(V& v, T& c) {
  v.required("type", c.type);
  v.required("status", c.status);
  v.optional("observedGeneration", c.observed_generation);
  v.required("lastTransitionTime", c.last_transition_time);
  v.required("reason", c.reason);
  v.required("message", c.message);
}

template <class V, Like<LabelSelectorRequirement> T>
void fields(V& v, T& r) {
  v.required("key", r.key);
  v.required("operator", r.op);
  v.optional("values", r.values);
}

template <class V, Like<LabelSelector> T>
void fields(V& v, T& s) {
  v.optional("matchLabels", s.match_labels);
  v.optional("matchExpressions", s.match_expressions);
}

template <class V, Like<LocalObjectReference> T>
void fields(V& v, T& r) {
  v.required("name", r.name);
}

// Metadata alone is lenient: the API server adds fields we do not model.
void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, ObjectMeta& out) {
  decode_struct(v, path, errors, out, ObjectDecoder::Mode::lenient);
}
rapidjson::Value encode_value(const ObjectMeta& in, Alloc& alloc) { return encode_struct(in, alloc); }

GPUPOOL_API_STRUCT_CODEC(Condition)
GPUPOOL_API_STRUCT_CODEC(LabelSelectorRequirement)
GPUPOOL_API_STRUCT_CODEC(LabelSelector)
GPUPOOL_API_STRUCT_CODEC(LocalObjectReference)

}  // namespace gpupool::api
