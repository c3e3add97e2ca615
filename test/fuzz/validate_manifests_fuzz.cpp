// libFuzzer target: any bytes as a manifest file through the whole offline
// validation pipeline of gpupoolctl validate (YAML 1.1 -> JSON, CRD schema,
// decode, semantic rules with the MIG planner). It must never crash or let an
// exception escape, and every problem must name a file.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpupool/api/manifest.h"
#include "gpupool/validation/validate.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto manifests = gpupool::api::load_manifests_from_string(text, "fuzz.yaml");
  gpupool::validation::ValidateOptions options;
  options.catalog = &gpupool::gpu::Catalog::builtin();
  options.schemas = &gpupool::schema::CrdSchemaSet::builtin();
  options.references = gpupool::validation::References::require;
  auto result = gpupool::validation::validate_manifests(manifests, options);
  for (const auto& p : result.problems) {
    if (p.file != "fuzz.yaml" || p.reason.empty()) __builtin_trap();
  }
  return 0;
}
