// libFuzzer target: any bytes as nvidia-smi -q -x output. The parser returns
// a log or an error naming where (never throws, never crashes); a parsed log
// keeps its own invariants, and merging it with empty MIG tables is safe.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpupool/backend/nvidia_smi_parse.h"
#include "gpupool/gpu/catalog.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpupool::backend;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const gpupool::gpu::Catalog& catalog = gpupool::gpu::Catalog::builtin();
  auto result = nvsmi::parse_query_xml(text, catalog);
  if (!result.ok()) {
    if (result.error().where.empty() || result.error().message.empty()) __builtin_trap();
    return 0;
  }
  nvsmi::QueryXml& xml = result.value();
  for (std::size_t i = 0; i < xml.inventory.gpus.size(); ++i) {
    const GpuInfo& g = xml.inventory.gpus[i];
    if (g.index != static_cast<int>(i) || g.memory_mib < 0) __builtin_trap();
    if (!g.mig_capable && !(g.mig == MigModeState{})) __builtin_trap();
    if (!g.catalog_id.empty() && catalog.find(g.catalog_id) == nullptr) __builtin_trap();
  }
  nvsmi::merge_mig_tables(xml.inventory, {}, {}, xml.mig_devices, {}, catalog);
  return 0;
}
