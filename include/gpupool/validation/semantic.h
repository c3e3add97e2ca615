// Semantic validation of gpupool.io objects: the rules a CRD schema cannot
// state, shared by gpupoolctl validate and the admission webhook.
//
// It also re-checks every invariant the CRDs express as CEL rules
// (x-kubernetes-validations), with the same field paths, because offline
// validation has no CEL engine; and it adds what needs knowledge of GPUs or of
// other objects: MIG layouts fit every GPU model the pool may select, AMD
// partition modes are supported, resource names are known, GPU quantities are
// whole numbers (gpupool.io/gpu: thousandths), durations are in range,
// references resolve.
//
// Input objects are decoded ones (api/codec.h): shape, types and enums are
// already right. Paths are Kubernetes field paths (api/field_error.h).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/api/field_error.h"
#include "gpupool/api/gpunode.h"
#include "gpupool/api/gpupolicy.h"
#include "gpupool/api/gpupool.h"
#include "gpupool/api/meta.h"
#include "gpupool/api/tenantquota.h"
#include "gpupool/gpu/catalog.h"
#include "gpupool/gpu/mig_parted.h"

namespace gpupool::validation {

// How references between objects (a pool's policyRef, a quota's poolRef) are
// checked: automatic = only when the other objects of that kind are known
// (the input holds at least one); require = always; ignore = never.
enum class References { automatic, require, ignore };

struct SemanticContext {
  const gpu::Catalog* catalog = nullptr;            // required
  const gpu::MigPartedConfig* mig_parted = nullptr;  // named layouts users bring
  // Names of the objects a reference may point at; nullopt = unknown (the
  // reference is then not checked).
  std::optional<std::set<std::string>> pool_names;
  std::optional<std::set<std::string>> policy_names;
};

api::FieldErrors validate(const api::GPUPool& pool, const SemanticContext& ctx);
api::FieldErrors validate(const api::GPUPolicy& policy, const SemanticContext& ctx);
api::FieldErrors validate(const api::TenantQuota& quota, const SemanticContext& ctx);
api::FieldErrors validate(const api::GPUNode& node, const SemanticContext& ctx);

// The catalog models a pool's node selector pins through the labels
// gpupool.io/gpu-model (catalog id) or nvidia.com/gpu.product (GPU Feature
// Discovery's product name), in matchLabels or an `In` expression. Empty when
// the selector does not pin a model (any model may be selected). Unknown
// model names are reported in `errors` under `path`.
std::vector<const gpu::GpuModel*> pinned_models(const api::LabelSelector& selector, const gpu::Catalog& catalog,
                                                const api::FieldPath& path, api::FieldErrors& errors);

// Whether `name` is a GPU resource name the operator manages: nvidia.com/gpu,
// nvidia.com/gpu.shared, amd.com/gpu, nvidia.com/mig-<profile> for a catalog
// profile ('+' in a profile name written as '.': nvidia.com/mig-1g.10gb.me).
// Device names only: quota maps also take gpupool.io/gpu (api/resource_names.h).
bool is_known_resource_name(std::string_view name, const gpu::Catalog& catalog);

}  // namespace gpupool::validation
