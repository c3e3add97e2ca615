#include <algorithm>

#include "gpupool/validation/semantic.h"

namespace gpupool::validation {
namespace {

constexpr const char* kModelLabel = "gpupool.io/gpu-model";
constexpr const char* kProductLabel = "nvidia.com/gpu.product";

void add_model(const std::string& value, const gpu::Catalog& catalog, const api::FieldPath& path,
               api::FieldErrors& errors, std::vector<const gpu::GpuModel*>& out) {
  const gpu::GpuModel* m = catalog.find(value);
  if (m == nullptr) {
    errors.push_back({path.str(), "Invalid value: \"" + value +
                                      "\": not a GPU model of the catalog (see gpupoolctl mig layouts / docs)"});
    return;
  }
  if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
}

}  // namespace

std::vector<const gpu::GpuModel*> pinned_models(const api::LabelSelector& selector, const gpu::Catalog& catalog,
                                                const api::FieldPath& path, api::FieldErrors& errors) {
  std::vector<const gpu::GpuModel*> out;
  for (const char* label : {kModelLabel, kProductLabel}) {
    auto it = selector.match_labels.find(label);
    if (it != selector.match_labels.end()) {
      add_model(it->second, catalog, path.field("matchLabels").key(label), errors, out);
    }
  }
  for (std::size_t i = 0; i < selector.match_expressions.size(); ++i) {
    const auto& r = selector.match_expressions[i];
    if (r.op != api::SelectorOperator::in || (r.key != kModelLabel && r.key != kProductLabel)) continue;
    for (std::size_t v = 0; v < r.values.size(); ++v) {
      add_model(r.values[v], catalog, path.field("matchExpressions").index(i).field("values").index(v), errors, out);
    }
  }
  return out;
}

bool is_known_resource_name(std::string_view name, const gpu::Catalog& catalog) {
  if (name == "nvidia.com/gpu" || name == "nvidia.com/gpu.shared" || name == "amd.com/gpu") return true;
  constexpr std::string_view mig = "nvidia.com/mig-";
  if (name.substr(0, mig.size()) != mig) return false;
  std::string_view profile = name.substr(mig.size());
  for (std::string known : catalog.all_mig_profile_names()) {
    std::replace(known.begin(), known.end(), '+', '.');
    if (known == profile) return true;
  }
  return false;
}

}  // namespace gpupool::validation
