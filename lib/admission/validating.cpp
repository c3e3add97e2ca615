#include "gpupool/admission/validating.h"

namespace gpupool::admission {

AdmissionResponse validate_request(const AdmissionRequest& request, const ValidatingOptions& options) {
  AdmissionResponse out;
  out.uid = request.uid;
  const bool ours = request.group == "gpupool.io" &&
                    (request.kind == "GPUPool" || request.kind == "GPUPolicy" || request.kind == "TenantQuota");
  if (!ours || request.operation == "DELETE" || request.operation == "CONNECT" || !request.object.IsObject()) return out;

  api::ManifestSet set;
  api::Manifest m;
  m.file = "<admission>";
  m.object.CopyFrom(request.object, m.object.GetAllocator());
  set.objects.push_back(std::move(m));
  validation::ValidateOptions vo;
  vo.catalog = options.catalog;
  vo.schemas = options.schemas;
  vo.mig_parted = options.mig_parted;
  vo.references = validation::References::ignore;
  const validation::ValidateResult result = validation::validate_manifests(set, vo);
  if (result.problems.empty()) return out;

  out.allowed = false;
  out.code = 422;
  out.reason = "Invalid";
  for (const auto& p : result.problems) {
    std::string line;
    if (!p.object.empty()) line += p.object + ": ";
    if (!p.path.empty()) line += p.path + ": ";
    line += p.reason;
    out.message += (out.message.empty() ? "" : "\n") + line;
  }
  return out;
}

}  // namespace gpupool::admission
