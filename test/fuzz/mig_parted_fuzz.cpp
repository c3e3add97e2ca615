// libFuzzer target: any bytes as an NVIDIA mig-parted config. Parsing either
// succeeds or throws MigPartedError (nothing else); every layout of a parsed
// config goes through the planner for an A100-80GB and an A30, and whatever
// plan() places must pass check_layout().
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>

#include "gpupool/gpu/catalog.h"
#include "gpupool/gpu/mig_parted.h"
#include "gpupool/gpu/mig_planner.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpupool::gpu;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  MigPartedConfig config;
  try {
    config = parse_mig_parted(text, "fuzz.yaml");
  } catch (const MigPartedError&) {
    return 0;
  }
  const Catalog& catalog = Catalog::builtin();
  for (const char* id : {"a100-sxm4-80gb", "a30-24gb"}) {
    const GpuModel* model = catalog.find(id);
    if (model == nullptr) __builtin_trap();
    for (const auto& [name, entries] : config.configs) {
      for (const auto& entry : entries) {
        ProfileCounts counts(entry.mig_devices.begin(), entry.mig_devices.end());
        auto planned = plan(*model, counts);
        if (const auto* layout = std::get_if<Layout>(&planned)) {
          if (!std::holds_alternative<std::monostate>(check_layout(*model, *layout))) __builtin_trap();
        } else if (std::get<PlanError>(planned).message.empty()) {
          __builtin_trap();
        }
      }
    }
  }
  return 0;
}
