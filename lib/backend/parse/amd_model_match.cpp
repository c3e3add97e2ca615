// Catalog lookup and partition-mode spelling shared by the AMD parsers.
#include <cctype>

#include "amd_json.h"

namespace gpupool::backend::amdsmi {

std::string normalize_partition_mode(std::string_view reported) {
  std::string_view s = detail::trim(reported);
  while (!s.empty() && s.back() == '*') s.remove_suffix(1);  // amd-smi marks the current profile
  s = detail::trim(s);
  if (detail::is_absent_text(s)) return "";
  std::string out(s.substr(0, 16));
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

namespace detail {

const gpu::GpuModel* match_model(const gpu::Catalog& catalog, std::string_view name, std::uint32_t device_id) {
  name = trim(name);
  if (!name.empty() && name.size() < 256) {
    if (const gpu::GpuModel* m = catalog.find(name)) {
      if (m->vendor == gpu::Vendor::amd) return m;
    }
    const auto open = name.find('[');
    const auto close = name.rfind(']');
    if (open != std::string_view::npos && close != std::string_view::npos && close > open) {
      std::string_view inner = name.substr(open + 1, close - open - 1);
      // "Instinct MI250X/MI250": the first of the names the entry covers.
      if (const auto slash = inner.find('/'); slash != std::string_view::npos) inner = inner.substr(0, slash);
      if (const gpu::GpuModel* m = catalog.find(trim(inner))) {
        if (m->vendor == gpu::Vendor::amd) return m;
      }
    }
  }
  if (device_id != 0) return catalog.find_by_pci_device_id(gpu::Vendor::amd, device_id);
  return nullptr;
}

}  // namespace detail
}  // namespace gpupool::backend::amdsmi
