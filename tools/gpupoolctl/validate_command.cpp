#include "validate_command.h"

#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog_option.h"
#include "gpupool/api/manifest.h"
#include "gpupool/gpu/mig_parted.h"
#include "gpupool/schema/crd_schema.h"
#include "gpupool/validation/validate.h"

namespace gpupool::ctl {
namespace {

struct ValidateArgs {
  std::vector<std::string> files;
  std::vector<std::string> crd_paths;
  std::string mig_parted;
  std::string references = "auto";
  bool quiet = false;
  CatalogOption catalog;
};

int run_validate(ValidateArgs& args) {
  api::ManifestSet manifests = api::load_manifests(args.files);

  std::optional<schema::CrdSchemaSet> loaded_schemas;
  if (!args.crd_paths.empty()) loaded_schemas = schema::CrdSchemaSet::load(args.crd_paths);
  const schema::CrdSchemaSet& schemas = loaded_schemas ? *loaded_schemas : schema::CrdSchemaSet::builtin();

  std::optional<gpu::MigPartedConfig> mig_parted;
  if (!args.mig_parted.empty()) mig_parted = gpu::load_mig_parted(args.mig_parted);

  validation::ValidateOptions options;
  options.catalog = &args.catalog.catalog();
  options.schemas = &schemas;
  options.mig_parted = mig_parted ? &*mig_parted : nullptr;
  options.references = args.references == "require" ? validation::References::require
                       : args.references == "ignore" ? validation::References::ignore
                                                     : validation::References::automatic;

  int problems = 0;
  for (const auto& e : manifests.errors) {
    ++problems;
    std::cout << e.file << ":" << e.line << ": " << e.message << "\n";
  }
  validation::ValidateResult result = validation::validate_manifests(manifests, options);
  for (const auto& p : result.problems) std::cout << validation::format_problem(p) << "\n";
  problems += static_cast<int>(result.problems.size());
  if (!args.quiet) {
    std::cerr << result.objects_checked << " gpupool.io object(s) checked, " << result.objects_skipped
              << " other object(s) skipped, " << problems << " problem(s)\n";
  }
  return problems == 0 ? 0 : 1;
}

}  // namespace

void add_validate_command(CLI::App& app) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Check manifests offline: the CRD schemas plus the semantic rules (MIG layouts fit the GPU models, resource "
      "names and quantities, references). One line per problem: FILE:LINE: KIND NAME: FIELD: REASON. Exit 1 on "
      "any problem.");
  cmd->add_option("-f,--filename", args->files, "files or directories (recursive: *.yaml, *.yml, *.json); - for stdin")
      ->required();
  cmd->add_option("--crds", args->crd_paths, "CRD files or directories to check against (default: the built-in CRDs)");
  cmd->add_option("--mig-parted-config", args->mig_parted,
                  "an NVIDIA mig-parted config whose named layouts pools may use in spec.partitioning.nvidia.layout")
      ->check(CLI::ExistingFile);
  cmd->add_option("--references", args->references,
                  "check references between objects: auto (when the input holds objects of the referenced kind), "
                  "require, ignore")
      ->check(CLI::IsMember({"auto", "require", "ignore"}));
  cmd->add_flag("-q,--quiet", args->quiet, "no summary line on stderr");
  args->catalog.add_to(*cmd);
  cmd->callback([args] { throw CLI::RuntimeError(run_validate(*args)); });
}

}  // namespace gpupool::ctl
