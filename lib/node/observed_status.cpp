#include "gpupool/node/observed_status.h"

namespace gpupool::node {
namespace {

api::GPULinkType link_type(backend::LinkKind k) {
  switch (k) {
    case backend::LinkKind::nvlink: return api::GPULinkType::nvlink;
    case backend::LinkKind::xgmi: return api::GPULinkType::xgmi;
    case backend::LinkKind::pcie_same_switch: return api::GPULinkType::pix;
    case backend::LinkKind::pcie_multi_switch: return api::GPULinkType::pxb;
    case backend::LinkKind::pcie_host_bridge: return api::GPULinkType::phb;
    case backend::LinkKind::same_numa: return api::GPULinkType::node;
    case backend::LinkKind::cross_numa:
    case backend::LinkKind::unknown: break;
  }
  return api::GPULinkType::sys;
}

std::optional<api::AMDComputePartition> compute_mode(const std::string& s) {
  for (const auto& n : api::enum_names(api::AMDComputePartition{})) {
    if (n.name == s) return n.value;
  }
  return std::nullopt;
}

std::optional<api::AMDMemoryPartition> memory_mode(const std::string& s) {
  for (const auto& n : api::enum_names(api::AMDMemoryPartition{})) {
    if (n.name == s) return n.value;
  }
  return std::nullopt;
}

}  // namespace

void fill_observed(api::GPUNodeStatus& status, const backend::Inventory& inv) {
  status.gpu_count = static_cast<std::int32_t>(inv.gpus.size());
  status.driver_version = inv.driver_version;
  status.cuda_version = inv.cuda_version;
  std::vector<api::GPUStatus> gpus;
  for (const auto& g : inv.gpus) {
    api::GPUStatus s;
    s.index = g.index;
    s.uuid = g.uuid;
    s.model = g.name;
    s.catalog_id = g.catalog_id;
    s.vendor = g.vendor == gpu::Vendor::amd ? api::GPUVendor::amd : api::GPUVendor::nvidia;
    s.memory_mib = g.memory_mib;
    s.pci_bus_id = g.pci_bus_id;
    if (g.vendor == gpu::Vendor::nvidia) {
      s.partition.capable = g.mig_capable;
      if (!g.mig_capable) {
        s.partition.mig_mode = api::MIGMode::not_supported;
      } else if (g.mig.current != g.mig.pending) {
        s.partition.mig_mode = api::MIGMode::pending;
      } else {
        s.partition.mig_mode = g.mig.current == backend::MigMode::enabled ? api::MIGMode::enabled : api::MIGMode::disabled;
      }
      for (const auto& i : g.instances) {
        s.partition.instances.push_back({i.profile, i.placement_start, i.gpu_instance_id, i.uuid, i.memory_mib});
      }
    } else {
      s.partition.capable = !g.compute_partition.empty();
      s.partition.compute_partition = compute_mode(g.compute_partition);
      s.partition.memory_partition = memory_mode(g.memory_partition);
    }
    // Keep what the health checks last said about this GPU.
    s.health = api::GPUHealth::unknown;
    for (const auto& old : status.gpus) {
      if (old.index == g.index && old.uuid == g.uuid) {
        s.health = old.health;
        s.health_reasons = old.health_reasons;
      }
    }
    gpus.push_back(std::move(s));
  }
  status.gpus = std::move(gpus);
  status.interconnect.clear();
  for (const auto& l : inv.links) {
    if (l.gpu_a == l.gpu_b) continue;
    api::GPULink link;
    link.from = std::min(l.gpu_a, l.gpu_b);
    link.to = std::max(l.gpu_a, l.gpu_b);
    link.type = link_type(l.kind);
    link.links = (l.kind == backend::LinkKind::nvlink || l.kind == backend::LinkKind::xgmi) ? l.nvlinks : 0;
    status.interconnect.push_back(link);
  }
}

bool same_report(const api::GPUNodeStatus& a, const api::GPUNodeStatus& b) {
  api::GPUNodeStatus x = a, y = b;
  x.last_heartbeat_time.reset();
  y.last_heartbeat_time.reset();
  return x == y;
}

}  // namespace gpupool::node
