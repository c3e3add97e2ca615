// Exported NVML: PCIe topology and NVLinks between GPUs.
#include <algorithm>
#include <cstdio>

#include "fake_shared.h"

using namespace fake_nvml;

namespace {

// A GPU with NVLinks answers for links 0..kLinksPerGpu-1 (inactive past the
// ones set); past that, and on GPUs without NVLink, NVML says so.
constexpr unsigned kLinksPerGpu = 18;

nvmlReturn_t link_end(Call& call, nvmlDevice_t device, unsigned link, const NvLinkEnd*& end) {
  Gpu* gpu = call.st.gpu(device);
  if (gpu == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (gpu->nvlinks.empty()) return NVML_ERROR_NOT_SUPPORTED;
  if (link >= std::max<std::size_t>(kLinksPerGpu, gpu->nvlinks.size())) return NVML_ERROR_INVALID_ARGUMENT;
  end = link < gpu->nvlinks.size() ? &gpu->nvlinks[link] : nullptr;
  return NVML_SUCCESS;
}

}  // namespace

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t a, nvmlDevice_t b, int* level) {
  Call call("nvmlDeviceGetTopologyCommonAncestor");
  if (call.early) return *call.early;
  Gpu* gpu_a = call.st.gpu(a);
  Gpu* gpu_b = call.st.gpu(b);
  if (gpu_a == nullptr || gpu_b == nullptr || level == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  const auto key = std::minmax(gpu_a->index, gpu_b->index);
  const auto found = call.st.topology.find({key.first, key.second});
  *level = found == call.st.topology.end() ? NVML_TOPOLOGY_NODE : found->second;
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned link, int* active) {
  Call call("nvmlDeviceGetNvLinkState");
  if (call.early) return *call.early;
  const NvLinkEnd* end = nullptr;
  if (active == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (const nvmlReturn_t ret = link_end(call, device, link, end); ret != NVML_SUCCESS) return ret;
  *active = end != nullptr ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
  return NVML_SUCCESS;
}

FAKE_NVML_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned link, nvmlPciInfo_t* pci) {
  Call call("nvmlDeviceGetNvLinkRemotePciInfo_v2");
  if (call.early) return *call.early;
  const NvLinkEnd* end = nullptr;
  if (pci == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (const nvmlReturn_t ret = link_end(call, device, link, end); ret != NVML_SUCCESS) return ret;
  if (end == nullptr) return NVML_ERROR_INVALID_ARGUMENT;  // inactive link
  if (Gpu* remote = call.st.gpu(end->remote_gpu)) {
    *pci = remote->pci();
  } else {
    *pci = nvmlPciInfo_t{};
    std::snprintf(pci->busId, sizeof pci->busId, "%s", end->remote_bus_id.c_str());
  }
  return NVML_SUCCESS;
}

namespace fake_nvml {

nvmlReturn_t nvlink_remote_device_type(const char* symbol, nvmlDevice_t device, unsigned link, int* type) {
  Call call(symbol);
  if (call.early) return *call.early;
  const NvLinkEnd* end = nullptr;
  if (type == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  if (const nvmlReturn_t ret = link_end(call, device, link, end); ret != NVML_SUCCESS) return ret;
  if (end == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *type = end->remote_type;
  return NVML_SUCCESS;
}

}  // namespace fake_nvml
