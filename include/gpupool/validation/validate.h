// Offline validation of manifests, for `gpupoolctl validate` and GitOps
// pipelines: every gpupool.io object in a set of YAML/JSON files is checked
// against the CRD schemas (as kube-apiserver would), decoded into its typed
// form, and put through the semantic rules (validation/semantic.h), which also
// stand in for the CRDs' CEL rules. Objects of other API groups are skipped.
#pragma once

#include <string>
#include <vector>

#include "gpupool/api/manifest.h"
#include "gpupool/gpu/catalog.h"
#include "gpupool/gpu/mig_parted.h"
#include "gpupool/schema/crd_schema.h"
#include "gpupool/validation/semantic.h"

namespace gpupool::validation {

// One problem, printed as one line:
//   config/pools.yaml:12: GPUPool a100-mig: spec.nodeTaints[0].effect: Unsupported value: ...
struct Problem {
  std::string file;
  int line = 0;          // of the object's document; 0 when unknown
  std::string object;    // "GPUPool a100-mig", "TenantQuota team-a/ml"; empty for file-level problems
  std::string path;      // field path; empty for object- or file-level problems
  std::string reason;
};
std::string format_problem(const Problem& p);

struct ValidateOptions {
  const gpu::Catalog* catalog = nullptr;           // required
  const schema::CrdSchemaSet* schemas = nullptr;   // required
  const gpu::MigPartedConfig* mig_parted = nullptr;  // named MIG layouts users bring
  References references = References::automatic;
};

struct ValidateResult {
  std::vector<Problem> problems;   // in file, then document order
  int objects_checked = 0;         // gpupool.io objects seen
  int objects_skipped = 0;         // other API groups
};

ValidateResult validate_manifests(const api::ManifestSet& manifests, const ValidateOptions& options);

}  // namespace gpupool::validation
