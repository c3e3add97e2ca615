#include "gpupool/quota/approval.h"

#include "gpupool/api/codec.h"
#include "gpupool/kube/client.h"

namespace gpupool::quota {

api::ApprovalRecord approval_of(const api::TenantQuota& quota, const api::Time& now) {
  api::ApprovalRecord r;
  r.resources = quota.spec.resources;
  r.borrowing_limit = quota.spec.borrowing_limit;
  r.generation = quota.metadata.generation;
  r.approved_at = now;
  return r;
}

std::string approval_patch(const api::TenantQuota& quota, const api::Time& now) {
  api::TenantQuota carrier;
  carrier.metadata.name = quota.metadata.name;
  carrier.metadata.namespace_ = quota.metadata.namespace_;
  carrier.spec.pool_ref = quota.spec.pool_ref;
  api::TenantQuotaStatus status;
  status.approved = approval_of(quota, now);
  carrier.status = status;
  rapidjson::Document doc;
  rapidjson::Value encoded = api::encode(carrier, doc.GetAllocator());
  rapidjson::Document patch;
  patch.SetObject();
  auto& a = patch.GetAllocator();
  rapidjson::Value meta(rapidjson::kObjectType);
  meta.AddMember("resourceVersion", rapidjson::Value(quota.metadata.resource_version.c_str(), a), a);
  patch.AddMember("metadata", meta, a);
  rapidjson::Value st(rapidjson::kObjectType);
  st.AddMember("approved", rapidjson::Value(encoded["status"]["approved"], a), a);
  patch.AddMember("status", st, a);
  return kube::to_json(patch);
}

}  // namespace gpupool::quota
