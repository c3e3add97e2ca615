// JSON fields of TenantQuota (tenantquota.h).
#include "object_codec.h"
#include "shared_codecs.h"

namespace gpupool::api {

GPUPOOL_API_DECLARE_STRUCT_CODEC(TenantQuotaSpec)
GPUPOOL_API_DECLARE_STRUCT_CODEC(ApprovalRecord)
GPUPOOL_API_DECLARE_STRUCT_CODEC(TenantQuotaStatus)

template <class V, Like<TenantQuotaSpec> T>
void fields(V& v, T& s) {
  v.required("poolRef", s.pool_ref);
  v.required("resources", s.resources);
  v.optional("borrowingLimit", s.borrowing_limit);
  v.optional("priority", s.priority);
  v.optional("namespaces", s.namespaces);
  v.optional("expiresAt", s.expires_at);
}

template <class V, Like<ApprovalRecord> T>
void fields(V& v, T& a) {
  v.required("resources", a.resources);
  v.optional("borrowingLimit", a.borrowing_limit);
  v.required("generation", a.generation);
  v.required("approvedAt", a.approved_at);
}

template <class V, Like<TenantQuotaStatus> T>
void fields(V& v, T& s) {
  v.optional("observedGeneration", s.observed_generation);
  v.optional("phase", s.phase);
  v.optional("granted", s.granted);
  v.optional("used", s.used);
  v.optional("borrowed", s.borrowed);
  v.optional("waiting", s.waiting);
  v.optional("approved", s.approved);
  v.optional("conditions", s.conditions);
}

template <class V, Like<TenantQuota> T>
void fields(V& v, T& o) {
  v.optional("metadata", o.metadata);
  v.required("spec", o.spec);
  v.optional("status", o.status);
}

GPUPOOL_API_STRUCT_CODEC(TenantQuotaSpec)
GPUPOOL_API_STRUCT_CODEC(ApprovalRecord)
GPUPOOL_API_STRUCT_CODEC(TenantQuotaStatus)
GPUPOOL_API_KIND_CODEC(TenantQuota, tenantquota)

}  // namespace gpupool::api
