// `amd-smi static --json` -> Inventory (see amd_parse.h).
#include "amd_json.h"

namespace gpupool::backend::amdsmi {

namespace {

using detail::ReadError;

std::string first_of(const rapidjson::Value& obj, std::initializer_list<const char*> keys, const std::string& path) {
  for (const char* key : keys) {
    if (auto v = detail::text(detail::member(obj, key), path + "." + key)) return *v;
  }
  return "";
}

// An identifier worth keeping: not "0" (amd-smi prints product_serial 0 on boards without one).
bool is_identity(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0x") != std::string::npos;
}

void read_asic(const rapidjson::Value& entry, const std::string& path, GpuInfo& gpu, std::string& serial) {
  const rapidjson::Value* asic = detail::section(entry, "asic", path);
  if (asic == nullptr) return;
  const std::string p = path + ".asic";
  gpu.name = first_of(*asic, {"market_name"}, p);
  if (auto id = detail::text(detail::member(*asic, "device_id"), p + ".device_id")) {
    const auto parsed = detail::parse_hex_u32(*id);
    if (!parsed || *parsed > 0xFFFF) {
      throw ReadError(p + ".device_id: expected a PCI device id like \"0x74a1\", got \"" + id->substr(0, 40) + "\"");
    }
    gpu.pci_device_id = *parsed;
  }
  serial = first_of(*asic, {"asic_serial"}, p);
}

void read_board(const rapidjson::Value& entry, const std::string& path, GpuInfo& gpu, std::string& serial) {
  const rapidjson::Value* board = detail::section(entry, "board", path);
  if (board == nullptr) return;
  const std::string p = path + ".board";
  if (gpu.name.empty()) gpu.name = first_of(*board, {"product_name"}, p);
  if (!is_identity(serial)) serial = first_of(*board, {"product_serial"}, p);
}

void read_memory(const rapidjson::Value& entry, const std::string& path, GpuInfo& gpu) {
  const rapidjson::Value* vram = detail::section(entry, "vram", path);
  if (vram == nullptr) return;
  const std::string p = path + ".vram.size";
  if (auto q = detail::quantity(detail::member(*vram, "size"), p)) {
    gpu.memory_mib = detail::to_mib(*q, "MB", p).value_or(0);
  }
}

void read_partition(const rapidjson::Value& entry, const std::string& path, GpuInfo& gpu) {
  const rapidjson::Value* part = detail::section(entry, "partition", path);
  if (part == nullptr) return;
  const std::string p = path + ".partition";
  gpu.compute_partition = normalize_partition_mode(first_of(*part, {"compute_partition", "accelerator_partition"}, p));
  gpu.memory_partition = normalize_partition_mode(first_of(*part, {"memory_partition"}, p));
}

GpuInfo read_gpu(const detail::Entry& e, const gpu::Catalog& catalog, std::string& driver_version) {
  const rapidjson::Value& entry = *e.value;
  GpuInfo gpu;
  gpu.vendor = gpu::Vendor::amd;
  gpu.index = detail::index_of(entry, "gpu", e.path);
  std::string serial;
  read_asic(entry, e.path, gpu, serial);
  read_board(entry, e.path, gpu, serial);
  if (is_identity(serial)) gpu.uuid = serial;
  if (const rapidjson::Value* bus = detail::section(entry, "bus", e.path)) {
    gpu.pci_bus_id = first_of(*bus, {"bdf"}, e.path + ".bus");
  }
  read_memory(entry, e.path, gpu);
  read_partition(entry, e.path, gpu);
  if (const rapidjson::Value* driver = detail::section(entry, "driver", e.path)) {
    const std::string version = first_of(*driver, {"version"}, e.path + ".driver");
    if (driver_version.empty()) driver_version = version;
  }
  if (const gpu::GpuModel* model = detail::match_model(catalog, gpu.name, gpu.pci_device_id)) {
    gpu.catalog_id = model->id;
    if (gpu.name.empty()) gpu.name = model->display_name;
  }
  return gpu;
}

}  // namespace

Parsed<Inventory> parse_static_json(std::string_view json, const gpu::Catalog& catalog) {
  return detail::guarded<Inventory>("amd-smi static --json", json, [&] {
    rapidjson::Document doc;
    detail::parse_json(doc, json);
    Inventory inventory;
    for (const detail::Entry& e : detail::gpu_entries(doc)) {
      inventory.gpus.push_back(read_gpu(e, catalog, inventory.driver_version));
    }
    detail::sort_unique_gpus(inventory.gpus, "GPU");
    return inventory;
  });
}

}  // namespace gpupool::backend::amdsmi
