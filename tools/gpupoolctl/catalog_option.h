// The --catalog option shared by gpupoolctl's commands: the built-in GPU model
// catalog unless a file is named.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "gpupool/gpu/catalog.h"

namespace gpupool::ctl {

class CatalogOption {
 public:
  void add_to(CLI::App& cmd);
  // The catalog to use; throws gpu::CatalogError for a bad file.
  const gpu::Catalog& catalog();
  // The model named on the command line, or a CLI error listing the known ids.
  const gpu::GpuModel& model(const std::string& name);

 private:
  std::string path_;
  std::unique_ptr<gpu::Catalog> loaded_;
};

}  // namespace gpupool::ctl
