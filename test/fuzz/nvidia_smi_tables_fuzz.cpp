// libFuzzer target: the same bytes as nvidia-smi -L, --query-gpu csv, mig
// -lgi / -lgip / -lgipp / -lci, mig -cgi and topo -m output. Each parser
// returns its result or an error naming a line (never throws, never
// crashes); what parses keeps the documented invariants.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpupool/backend/nvidia_smi_parse.h"

namespace {

template <class R>
bool error_is_named(const R& r) {
  return r.ok() || (!r.error().where.empty() && !r.error().message.empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace gpupool::backend;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  const auto list = nvsmi::parse_list(text);
  const auto csv = nvsmi::parse_query_gpu_csv(text);
  const auto lgi = nvsmi::parse_mig_lgi(text);
  const auto lgip = nvsmi::parse_mig_lgip(text);
  const auto lgipp = nvsmi::parse_mig_lgipp(text);
  const auto lci = nvsmi::parse_mig_lci(text);
  const auto created = nvsmi::parse_mig_create(text);
  const auto topo = nvsmi::parse_topo_matrix(text);
  if (!error_is_named(list) || !error_is_named(csv) || !error_is_named(lgi) || !error_is_named(lgip) ||
      !error_is_named(lgipp) || !error_is_named(lci) || !error_is_named(created) || !error_is_named(topo)) {
    __builtin_trap();
  }
  if (topo.ok()) {
    for (std::size_t i = 0; i < topo.value().size(); ++i) {
      const GpuLink& l = topo.value()[i];
      if (l.gpu_a >= l.gpu_b) __builtin_trap();
      if ((l.kind == LinkKind::nvlink) != (l.nvlinks > 0)) __builtin_trap();
      if (i > 0) {
        const GpuLink& p = topo.value()[i - 1];
        if (p.gpu_a > l.gpu_a || (p.gpu_a == l.gpu_a && p.gpu_b >= l.gpu_b)) __builtin_trap();
      }
      (void)link_label(l);
    }
  }
  if (lgipp.ok()) {
    for (const auto& row : lgipp.value()) {
      for (const auto& p : row.placements) {
        if (p.size <= 0) __builtin_trap();
      }
    }
  }
  // The pieces together, as the backend puts them.
  if (lgi.ok() && lci.ok() && list.ok()) {
    Inventory inv;
    for (int i = 0; i < 3; ++i) {
      GpuInfo g;
      g.index = i;
      g.catalog_id = i == 0 ? "a100-sxm4-80gb" : "";
      inv.gpus.push_back(g);
    }
    nvsmi::merge_mig_tables(inv, lgi.value(), lci.value(), {}, list.value(), gpupool::gpu::Catalog::builtin());
    for (const auto& g : inv.gpus) {
      for (std::size_t i = 1; i < g.instances.size(); ++i) {
        if (g.instances[i - 1].placement_start > g.instances[i].placement_start) __builtin_trap();
      }
    }
  }
  return 0;
}
