// TenantQuota rules: known resource names with whole-number quantities (GPU
// units to the thousandth), the borrowing limit only for guaranteed resources
// (in the spec and in an approval record), the pool reference.
#include "common_rules.h"
#include "gpupool/validation/semantic.h"

namespace gpupool::validation {

api::FieldErrors validate(const api::TenantQuota& quota, const SemanticContext& ctx) {
  api::FieldErrors errors;
  api::FieldPath sp("spec");
  const auto& spec = quota.spec;
  check_resource_map(spec.resources, *ctx.catalog, sp.field("resources"), errors);
  check_resource_map(spec.borrowing_limit, *ctx.catalog, sp.field("borrowingLimit"), errors);
  for (const auto& [name, value] : spec.borrowing_limit) {
    if (spec.resources.count(name) == 0) {
      errors.push_back({sp.field("borrowingLimit").str(),
                        "Invalid value: \"" + name + "\": every borrowingLimit key must also be in resources"});
    }
  }
  for (std::size_t i = 0; i < spec.namespaces.size(); ++i) {
    if (!is_dns1123_label(spec.namespaces[i])) {
      errors.push_back({sp.field("namespaces").index(i).str(),
                        "Invalid value: \"" + spec.namespaces[i] + "\": must be a namespace name"});
    }
  }
  // Status is written by the operator and gpupoolctl approve, not by people:
  // of it only the CRD's CEL rule on the approval record is re-checked.
  if (quota.status && quota.status->approved) {
    const auto& a = *quota.status->approved;
    for (const auto& [name, value] : a.borrowing_limit) {
      if (a.resources.count(name) == 0) {
        errors.push_back({api::FieldPath("status").field("approved").field("borrowingLimit").str(),
                          "Invalid value: \"" + name + "\": every borrowingLimit key must also be in resources"});
      }
    }
  }
  if (ctx.pool_names && ctx.pool_names->count(spec.pool_ref.name) == 0) {
    errors.push_back({sp.field("poolRef").field("name").str(),
                      "Not found: \"" + spec.pool_ref.name + "\": no GPUPool of that name among the given objects"});
  }
  return errors;
}

}  // namespace gpupool::validation
