// Catalog: the built-in copy, loading, and lookups.
#include "gpupool/gpu/catalog.h"

#include <algorithm>
#include <set>

#include "catalog_internal.h"
#include "model_names.h"
#include "text.h"

namespace gpupool::embedded {
std::string_view gpu_models_yaml();  // generated from lib/gpu/data/gpu-models.yaml
}

namespace gpupool::gpu {

std::string_view to_string(Vendor v) {
  switch (v) {
    case Vendor::nvidia:
      return "nvidia";
    case Vendor::amd:
      return "amd";
  }
  return "unknown";
}

const MigProfile* MigCapability::profile(std::string_view name) const {
  for (const MigProfile& p : profiles) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

bool AmdPartitionModes::supports(std::string_view compute_mode, std::string_view memory_mode) const {
  const auto listed = [](const std::vector<std::string>& modes, std::string_view mode) {
    return std::find(modes.begin(), modes.end(), mode) != modes.end();
  };
  if (!listed(compute, compute_mode) || !listed(memory, memory_mode)) return false;
  if (combinations.empty()) return true;
  return std::any_of(combinations.begin(), combinations.end(), [&](const auto& c) {
    return c.first == compute_mode && c.second == memory_mode;
  });
}

const Catalog& Catalog::builtin() {
  // An invalid built-in catalog is a build bug: the CatalogError propagates.
  static const Catalog catalog = parse(embedded::gpu_models_yaml(), "builtin (lib/gpu/data/gpu-models.yaml)");
  return catalog;
}

Catalog Catalog::parse(std::string_view yaml_text, std::string_view origin) {
  Catalog c;
  c.models_ = detail::read_catalog_models(yaml_text, origin);
  detail::validate_catalog(c.models_, origin);
  for (std::size_t i = 0; i < c.models_.size(); ++i) {
    const GpuModel& m = c.models_[i];
    c.by_name_key_.emplace(name_key(m.id), i);
    c.by_name_key_.emplace(name_key(m.display_name), i);
    for (const std::string& n : m.names) c.by_name_key_.emplace(name_key(n), i);
  }
  return c;
}

Catalog Catalog::load(const std::string& path) {
  std::string yaml_text;
  try {
    yaml_text = text::read_file(path);
  } catch (const std::runtime_error& e) {
    throw CatalogError(std::string("gpu catalog: ") + e.what());
  }
  return parse(yaml_text, path);
}

const GpuModel* Catalog::find(std::string_view id_or_name) const {
  const auto it = by_name_key_.find(name_key(id_or_name));
  return it == by_name_key_.end() ? nullptr : &models_[it->second];
}

const GpuModel* Catalog::find_by_pci_device_id(Vendor vendor, std::uint32_t device_id) const {
  for (const GpuModel& m : models_) {
    if (m.vendor != vendor) continue;
    if (std::find(m.pci_device_ids.begin(), m.pci_device_ids.end(), device_id) != m.pci_device_ids.end()) return &m;
  }
  return nullptr;
}

std::vector<std::string> Catalog::all_mig_profile_names() const {
  std::set<std::string> names;
  for (const GpuModel& m : models_) {
    if (!m.mig) continue;
    for (const MigProfile& p : m.mig->profiles) names.insert(p.name);
  }
  return {names.begin(), names.end()};
}

}  // namespace gpupool::gpu
