// libFuzzer target: any bytes as the output of amd-smi (static, list, metric,
// partition JSON and text, process) and rocm-smi. Every parser must answer
// with a value or a non-empty error and never throw; a parsed inventory must
// be sorted by index with no GPU listed twice.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpupool/backend/amd_parse.h"
#include "gpupool/gpu/catalog.h"

namespace {

template <class T>
void check(const gpupool::backend::amdsmi::Parsed<T>& p) {
  if (!p && p.error.empty()) __builtin_trap();
}

void check_inventory(const gpupool::backend::amdsmi::Parsed<gpupool::backend::Inventory>& p) {
  check(p);
  if (!p) return;
  const auto& gpus = p.value->gpus;
  for (std::size_t i = 1; i < gpus.size(); ++i) {
    if (gpus[i - 1].index >= gpus[i].index) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace amdsmi = gpupool::backend::amdsmi;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto& catalog = gpupool::gpu::Catalog::builtin();
  try {
    auto static_inventory = amdsmi::parse_static_json(text, catalog);
    check_inventory(static_inventory);
    const auto list = amdsmi::parse_list_json(text);
    check(list);
    if (static_inventory && list) amdsmi::merge_list(*static_inventory.value, *list.value);
    check(amdsmi::parse_metric_json(text));
    check(amdsmi::parse_partition_json(text));
    check(amdsmi::parse_partition_text(text));
    check(amdsmi::parse_process_json(text));
    check_inventory(amdsmi::parse_rocm_smi_json(text, catalog));
    check(amdsmi::parse_rocm_smi_metrics_json(text));
    (void)amdsmi::normalize_partition_mode(text.substr(0, 64));
  } catch (...) {
    __builtin_trap();  // the parsers promise never to throw
  }
  return 0;
}
