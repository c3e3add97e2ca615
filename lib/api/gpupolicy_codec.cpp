// JSON fields of GPUPolicy (gpupolicy.h).
#include "object_codec.h"
#include "shared_codecs.h"

namespace gpupool::api {

GPUPOOL_API_DECLARE_STRUCT_CODEC(Borrowing)
GPUPOOL_API_DECLARE_STRUCT_CODEC(FairShare)
GPUPOOL_API_DECLARE_STRUCT_CODEC(Expiry)
GPUPOOL_API_DECLARE_STRUCT_CODEC(QuotaRules)
GPUPOOL_API_DECLARE_STRUCT_CODEC(XIDRule)
GPUPOOL_API_DECLARE_STRUCT_CODEC(TemperatureRule)
GPUPOOL_API_DECLARE_STRUCT_CODEC(ECCRule)
GPUPOOL_API_DECLARE_STRUCT_CODEC(HealthRules)
GPUPOOL_API_DECLARE_STRUCT_CODEC(GPUPolicySpec)
GPUPOOL_API_DECLARE_STRUCT_CODEC(GPUPolicyStatus)

template <class V, Like<Borrowing> T>
void fields(V& v, T& b) {
  v.optional("enabled", b.enabled);
  v.optional("limitPercent", b.limit_percent);
}

template <class V, Like<FairShare> T>
void fields(V& v, T& f) {
  v.always("defaultWeight", f.default_weight);
  v.optional("weights", f.weights);
}

template <class V, Like<Expiry> T>
void fields(V& v, T& e) {
  v.always("action", e.action);
  v.always("gracePeriod", e.grace_period);
}

template <class V, Like<QuotaRules> T>
void fields(V& v, T& q) {
  v.optional("namespaceSelector", q.namespace_selector);
  v.optional("namespaces", q.namespaces);
  v.always("approval", q.approval);
  v.optional("maxPerTenant", q.max_per_tenant);
  v.optional("reserve", q.reserve);
  v.always("borrowing", q.borrowing);
  v.always("fairShare", q.fair_share);
  v.always("reclaimGracePeriod", q.reclaim_grace_period);
  v.always("partialGrants", q.partial_grants);  // default true: false must be written
  v.always("chargeBasis", q.charge_basis);
  v.always("onCapacityLoss", q.on_capacity_loss);
  v.always("expiry", q.expiry);
  v.optional("deviceClasses", q.device_classes);
}

template <class V, Like<XIDRule> T>
void fields(V& v, T& x) {
  v.required("codes", x.codes);
  v.required("action", x.action);
}

template <class V, Like<TemperatureRule> T>
void fields(V& v, T& t) {
  v.required("warningCelsius", t.warning_celsius);
  v.required("criticalCelsius", t.critical_celsius);
  v.always("action", t.action);
}

template <class V, Like<ECCRule> T>
void fields(V& v, T& e) {
  v.always("correctableErrorsPerDay", e.correctable_errors_per_day);
  v.always("uncorrectableErrors", e.uncorrectable_errors);
  v.always("action", e.action);
}

template <class V, Like<HealthRules> T>
void fields(V& v, T& h) {
  v.optional("xids", h.xids);
  v.optional("temperature", h.temperature);
  v.optional("ecc", h.ecc);
  v.always("recoveryPeriod", h.recovery_period);
  v.always("maxUnhealthyNodes", h.max_unhealthy_nodes);
}

template <class V, Like<GPUPolicySpec> T>
void fields(V& v, T& s) {
  v.optional("quota", s.quota);
  v.optional("health", s.health);
  v.optional("upgrade", s.upgrade);
}

template <class V, Like<GPUPolicyStatus> T>
void fields(V& v, T& s) {
  v.optional("observedGeneration", s.observed_generation);
  v.optional("conditions", s.conditions);
  v.optional("pools", s.pools);
}

template <class V, Like<GPUPolicy> T>
void fields(V& v, T& o) {
  v.optional("metadata", o.metadata);
  v.always("spec", o.spec);  // every part of the spec is optional
  v.optional("status", o.status);
}

GPUPOOL_API_STRUCT_CODEC(Borrowing)
GPUPOOL_API_STRUCT_CODEC(FairShare)
GPUPOOL_API_STRUCT_CODEC(Expiry)
GPUPOOL_API_STRUCT_CODEC(QuotaRules)
GPUPOOL_API_STRUCT_CODEC(XIDRule)
GPUPOOL_API_STRUCT_CODEC(TemperatureRule)
GPUPOOL_API_STRUCT_CODEC(ECCRule)
GPUPOOL_API_STRUCT_CODEC(HealthRules)
GPUPOOL_API_STRUCT_CODEC(GPUPolicySpec)
GPUPOOL_API_STRUCT_CODEC(GPUPolicyStatus)
GPUPOOL_API_KIND_CODEC(GPUPolicy, gpupolicy)

}  // namespace gpupool::api
