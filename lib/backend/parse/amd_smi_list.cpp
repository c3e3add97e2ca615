// `amd-smi list --json` -> GPU index, UUID and BDF (see amd_parse.h).
#include <algorithm>

#include "amd_json.h"

namespace gpupool::backend::amdsmi {

Parsed<std::vector<ListEntry>> parse_list_json(std::string_view json) {
  return detail::guarded<std::vector<ListEntry>>("amd-smi list --json", json, [&] {
    rapidjson::Document doc;
    detail::parse_json(doc, json);
    std::vector<ListEntry> out;
    for (const detail::Entry& e : detail::gpu_entries(doc)) {
      ListEntry row;
      row.index = detail::index_of(*e.value, "gpu", e.path);
      row.uuid = detail::text(detail::member(*e.value, "uuid"), e.path + ".uuid").value_or("");
      row.pci_bus_id = detail::text(detail::member(*e.value, "bdf"), e.path + ".bdf").value_or("");
      out.push_back(std::move(row));
    }
    std::sort(out.begin(), out.end(), [](const ListEntry& a, const ListEntry& b) { return a.index < b.index; });
    for (std::size_t i = 1; i < out.size(); ++i) {
      if (out[i].index == out[i - 1].index) {
        throw detail::ReadError("GPU " + std::to_string(out[i].index) + " is listed twice");
      }
    }
    return out;
  });
}

void merge_list(Inventory& inventory, const std::vector<ListEntry>& list) {
  for (GpuInfo& gpu : inventory.gpus) {
    const auto it = std::find_if(list.begin(), list.end(), [&](const ListEntry& e) { return e.index == gpu.index; });
    if (it == list.end()) continue;
    if (!it->uuid.empty()) gpu.uuid = it->uuid;
    if (gpu.pci_bus_id.empty()) gpu.pci_bus_id = it->pci_bus_id;
  }
}

}  // namespace gpupool::backend::amdsmi
