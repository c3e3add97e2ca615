// The validating webhook for GPUPool, GPUPolicy and TenantQuota: the same
// checks as `gpupoolctl validate` (validation/validate.h: schema, decoding,
// semantic rules incl. the MIG planner), so `kubectl apply` refuses what
// validate refuses, with the same words:
//   GPUPool a100-mig: spec.partitioning.nvidia.devices[0].profiles: Invalid value: ...
// (one line per problem; code 422, reason Invalid). References to other
// objects are not checked (the API server holds no ordering between
// objects applied together). DELETE and other kinds are allowed. Pure.
#pragma once

#include "gpupool/admission/admission_review.h"
#include "gpupool/validation/validate.h"

namespace gpupool::admission {

struct ValidatingOptions {
  const gpu::Catalog* catalog = nullptr;           // required
  const schema::CrdSchemaSet* schemas = nullptr;   // required
  const gpu::MigPartedConfig* mig_parted = nullptr;
};

AdmissionResponse validate_request(const AdmissionRequest& request, const ValidatingOptions& options);

}  // namespace gpupool::admission
