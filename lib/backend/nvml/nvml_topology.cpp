// Links between GPUs: the PCIe common ancestor and the NVLinks joining them,
// directly or through NVSwitches.
#include <algorithm>
#include <cctype>

#include "nvml_parts.h"

namespace gpupool::backend::nvml {
namespace {

// Bus ids compared the same whether NVML wrote the domain with 4 or 8 digits
// or in either case: "0000:07:00.0" and "00000000:07:00.0" are one device.
std::string bus_key(std::string bus_id) {
  for (char& c : bus_id) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const auto colon = bus_id.find(':');
  if (colon != std::string::npos && colon < 8) bus_id.insert(0, 8 - colon, '0');
  return bus_id;
}

struct NvLinks {
  std::map<std::string, int> to_gpu;  // bus key of the GPU at the far end -> links
  int to_switch = 0;
};

NvLinks read_nvlinks(const Library& lib, nvmlDevice_t device, int gpu) {
  const Api& api = lib.api();
  NvLinks links;
  if (api.nvlink_state == nullptr || api.nvlink_remote_pci == nullptr) return links;
  for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    int active = NVML_FEATURE_DISABLED;
    const nvmlReturn_t ret = api.nvlink_state(device, link, &active);
    // No NVLink on the GPU, or a link number past the ones it has.
    if (ret == NVML_ERROR_NOT_SUPPORTED || ret == NVML_ERROR_INVALID_ARGUMENT) continue;
    lib.check(ret, "nvmlDeviceGetNvLinkState", gpu, "link " + std::to_string(link));
    if (active != NVML_FEATURE_ENABLED) continue;
    if (api.nvlink_remote_device_type != nullptr) {
      int type = NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
      const nvmlReturn_t type_ret = api.nvlink_remote_device_type(device, link, &type);
      if (type_ret != NVML_ERROR_NOT_SUPPORTED) {
        lib.check(type_ret, "nvmlDeviceGetNvLinkRemoteDeviceType", gpu, "link " + std::to_string(link));
        if (type == NVML_NVLINK_DEVICE_TYPE_SWITCH) {
          ++links.to_switch;
          continue;
        }
      }
    }
    nvmlPciInfo_t remote{};
    lib.check(api.nvlink_remote_pci(device, link, &remote), "nvmlDeviceGetNvLinkRemotePciInfo", gpu,
              "link " + std::to_string(link));
    ++links.to_gpu[bus_key(from_buffer(remote.busId))];
  }
  return links;
}

LinkKind pcie_kind(int level) {
  switch (level) {
    case NVML_TOPOLOGY_INTERNAL:    // two GPUs of one board: as close as a shared switch
    case NVML_TOPOLOGY_SINGLE: return LinkKind::pcie_same_switch;
    case NVML_TOPOLOGY_MULTIPLE: return LinkKind::pcie_multi_switch;
    case NVML_TOPOLOGY_HOSTBRIDGE: return LinkKind::pcie_host_bridge;
    case NVML_TOPOLOGY_NODE: return LinkKind::same_numa;
    case NVML_TOPOLOGY_SYSTEM: return LinkKind::cross_numa;
    default: return LinkKind::unknown;
  }
}

LinkKind common_ancestor(const Library& lib, nvmlDevice_t a, nvmlDevice_t b, int gpu_a) {
  if (lib.api().topology_common_ancestor == nullptr) return LinkKind::unknown;
  int level = -1;
  const nvmlReturn_t ret = lib.api().topology_common_ancestor(a, b, &level);
  if (ret == NVML_ERROR_NOT_SUPPORTED) return LinkKind::unknown;
  lib.check(ret, "nvmlDeviceGetTopologyCommonAncestor", gpu_a);
  return pcie_kind(level);
}

int links_to(const NvLinks& from, const std::string& bus_id) {
  const auto found = from.to_gpu.find(bus_key(bus_id));
  return found == from.to_gpu.end() ? 0 : found->second;
}

}  // namespace

std::vector<GpuLink> read_links(const Library& lib, const std::vector<nvmlDevice_t>& devices,
                                const std::vector<std::string>& bus_ids) {
  std::vector<NvLinks> nvlinks;
  for (std::size_t i = 0; i < devices.size(); ++i) nvlinks.push_back(read_nvlinks(lib, devices[i], static_cast<int>(i)));
  std::vector<GpuLink> links;
  for (std::size_t a = 0; a < devices.size(); ++a) {
    for (std::size_t b = a + 1; b < devices.size(); ++b) {
      GpuLink link;
      link.gpu_a = static_cast<int>(a);
      link.gpu_b = static_cast<int>(b);
      // Direct links as either end counts them, plus the switch links both
      // ends have (every GPU on an NVSwitch fabric reaches every other).
      link.nvlinks = std::max(links_to(nvlinks[a], bus_ids[b]), links_to(nvlinks[b], bus_ids[a])) +
                     std::min(nvlinks[a].to_switch, nvlinks[b].to_switch);
      link.kind = link.nvlinks > 0 ? LinkKind::nvlink : common_ancestor(lib, devices[a], devices[b], link.gpu_a);
      if (link.kind != LinkKind::unknown) links.push_back(link);
    }
  }
  return links;
}

}  // namespace gpupool::backend::nvml
