#include "catalog_option.h"

namespace gpupool::ctl {

void CatalogOption::add_to(CLI::App& cmd) {
  cmd.add_option("--catalog", path_, "GPU model catalog file (default: the built-in catalog)")
      ->check(CLI::ExistingFile);
}

const gpu::Catalog& CatalogOption::catalog() {
  if (path_.empty()) return gpu::Catalog::builtin();
  if (!loaded_) loaded_ = std::make_unique<gpu::Catalog>(gpu::Catalog::load(path_));
  return *loaded_;
}

const gpu::GpuModel& CatalogOption::model(const std::string& name) {
  const gpu::GpuModel* model = catalog().find(name);
  if (model == nullptr) {
    std::string known;
    for (const auto& m : catalog().models()) known += (known.empty() ? "" : ", ") + m.id;
    throw CLI::ValidationError("--model", "unknown GPU model \"" + name + "\" (known: " + known + ")");
  }
  return *model;
}

}  // namespace gpupool::ctl
