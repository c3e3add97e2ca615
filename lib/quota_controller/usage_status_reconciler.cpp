#include "gpupool/quota_controller/usage_status_reconciler.h"

#include <spdlog/spdlog.h>

#include "gpupool/api/quantity.h"
#include "gpupool/kube/errors.h"
#include "gpupool/kube/json_access.h"
#include "gpupool/kube/resource.h"
#include "gpupool/quota_controller/pool_view.h"
#include "gpupool/runtime/object_helpers.h"

namespace gpupool::quota_controller {
namespace {

using Doc = rapidjson::Document;

// status.<field> as the quantities it should hold.
rapidjson::Value quantity_map(const quota::Amounts& amounts, Doc::AllocatorType& a) {
  rapidjson::Value map(rapidjson::kObjectType);
  for (const auto& [r, q] : to_quantities(amounts)) {
    map.AddMember(rapidjson::Value(r.c_str(), a), rapidjson::Value(q.quantity.text().c_str(), a), a);
  }
  return map;
}

struct Figures {
  quota::Amounts used, waiting, borrowed;
  bool shown_in(const rapidjson::Value& quota) const {
    return status_amounts(quota, "used") == used && status_amounts(quota, "waiting") == waiting &&
           status_amounts(quota, "borrowed") == borrowed;
  }
};

}  // namespace

quota::Amounts status_amounts(const rapidjson::Value& quota, const char* field) {
  quota::Amounts out;
  const rapidjson::Value* m = kube::value_at(quota, {"status", field});
  if (m == nullptr || !m->IsObject()) return out;
  for (const auto& e : m->GetObject()) {
    if (!e.value.IsString()) continue;
    auto q = api::parse_quantity(e.value.GetString());
    if (!q) continue;
    if (auto v = q.value->micro_value(); v && *v > 0) out[e.name.GetString()] = *v;
  }
  return out;
}

bool quota_usage_status_changed(const kube::Object& old_obj, const kube::Object& new_obj) {
  for (const char* field : {"granted", "used", "waiting", "borrowed"}) {
    if (kube::differs_at(old_obj.doc, new_obj.doc, {"status", field})) return true;
  }
  return false;
}

runtime::Result UsageStatusReconciler::reconcile(const runtime::Request& request, std::stop_token) {
  const std::string key = request.key();
  const auto current = quotas_.get(key);
  if (!current || current->deleting) return runtime::Result::done();
  const std::optional<QuotaUsage> usage = usage_of_(key);
  if (!usage) return runtime::Result::done();
  const Figures want{usage->used, usage->waiting, quota::above(usage->used, status_amounts(current->doc, "granted"))};
  if (want.shown_in(current->doc)) return runtime::Result::done();
  try {
    runtime::update_status(
        client_, kube::ResourceRef{{"gpupool.io", "v1alpha1", "tenantquotas"}, request.ns, request.name, ""}, current->doc,
        [&](Doc& doc) {
          // Borrowed against the grant as read now (a conflict reads afresh).
          const Figures now{want.used, want.waiting, quota::above(want.used, status_amounts(doc, "granted"))};
          if (now.shown_in(doc)) return false;
          auto& a = doc.GetAllocator();
          if (!doc.HasMember("status") || !doc["status"].IsObject()) {
            doc.RemoveMember("status");
            doc.AddMember("status", rapidjson::Value(rapidjson::kObjectType), a);
          }
          auto& s = doc["status"];
          using Field = std::pair<const char*, const quota::Amounts*>;
          for (const auto& [field, amounts] :
               {Field{"used", &now.used}, Field{"waiting", &now.waiting}, Field{"borrowed", &now.borrowed}}) {
            s.RemoveMember(field);
            if (!amounts->empty()) s.AddMember(rapidjson::StringRef(field), quantity_map(*amounts, a), a);
          }
          return true;
        });
  } catch (const kube::ApiError& e) {
    if (e.is_not_found()) return runtime::Result::done();  // deleted meanwhile
    spdlog::warn("TenantQuota {}: writing usage failed: {}", key, e.what());
    return runtime::Result::requeue();
  }
  return runtime::Result::done();
}

}  // namespace gpupool::quota_controller
