#include "gpupool/backend/backend.h"

namespace gpupool::backend {

std::string link_label(const GpuLink& link) {
  switch (link.kind) {
    case LinkKind::nvlink: return "NV" + std::to_string(link.nvlinks);
    case LinkKind::pcie_same_switch: return "PIX";
    case LinkKind::pcie_multi_switch: return "PXB";
    case LinkKind::pcie_host_bridge: return "PHB";
    case LinkKind::same_numa: return "NODE";
    case LinkKind::cross_numa: return "SYS";
    case LinkKind::xgmi: return "XGMI";
    case LinkKind::unknown: break;
  }
  return "X";
}

}  // namespace gpupool::backend
