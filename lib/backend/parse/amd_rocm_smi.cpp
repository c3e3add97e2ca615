// `rocm-smi --json` -> Inventory and GpuMetrics (see amd_parse.h).
#include <algorithm>
#include <cctype>

#include "amd_json.h"

namespace gpupool::backend::amdsmi {

namespace {

using detail::ReadError;

struct Card {
  int index;
  const rapidjson::Value* value;
  std::string path;
};

// The "cardN" members of the top-level object ("system" and others are skipped).
std::vector<Card> cards(const rapidjson::Value& root) {
  if (!root.IsObject()) throw ReadError("$: expected an object of \"cardN\" members, got " + detail::type_name(root));
  std::vector<Card> out;
  for (auto it = root.MemberBegin(); it != root.MemberEnd(); ++it) {
    const std::string_view name(it->name.GetString(), it->name.GetStringLength());
    if (name.size() <= 4 || name.substr(0, 4) != "card") continue;
    const std::string_view digits = name.substr(4);
    if (digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    std::string path = "$." + std::string(name.substr(0, 20));
    if (!it->value.IsObject()) throw ReadError(path + ": expected an object, got " + detail::type_name(it->value));
    if (out.size() >= kMaxGpus) throw ReadError("$: more than " + std::to_string(kMaxGpus) + " cards");
    out.push_back({std::stoi(std::string(digits)), &it->value, std::move(path)});
  }
  std::sort(out.begin(), out.end(), [](const Card& a, const Card& b) { return a.index < b.index; });
  for (std::size_t i = 1; i < out.size(); ++i) {
    if (out[i].index == out[i - 1].index) throw ReadError("card " + std::to_string(out[i].index) + " is listed twice");
  }
  return out;
}

std::string field(const Card& card, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (auto v = detail::text(detail::member_ci(*card.value, key), card.path + "." + key)) return *v;
  }
  return "";
}

std::optional<detail::Quantity> number(const Card& card, std::initializer_list<const char*> keys) {
  for (const char* key : keys) {
    if (auto q = detail::quantity(detail::member_ci(*card.value, key), card.path + "." + key)) return q;
  }
  return std::nullopt;
}

GpuInfo read_card(const Card& card, const gpu::Catalog& catalog) {
  GpuInfo gpu;
  gpu.vendor = gpu::Vendor::amd;
  gpu.index = card.index;
  gpu.name = field(card, {"Device Name", "Card Series"});
  if (const std::string id = field(card, {"Device ID"}); !id.empty()) {
    const auto parsed = detail::parse_hex_u32(id);
    if (!parsed || *parsed > 0xFFFF) {
      throw ReadError(card.path + ".Device ID: expected a PCI device id like \"0x738c\", got \"" + id.substr(0, 40) + "\"");
    }
    gpu.pci_device_id = *parsed;
  }
  gpu.pci_bus_id = field(card, {"PCI Bus"});
  gpu.uuid = field(card, {"Unique ID", "Serial Number"});
  if (auto bytes = number(card, {"VRAM Total Memory (B)"})) {
    gpu.memory_mib = detail::to_mib(*bytes, "B", card.path + ".VRAM Total Memory (B)").value_or(0);
  }
  gpu.compute_partition = normalize_partition_mode(field(card, {"Compute Partition"}));
  gpu.memory_partition = normalize_partition_mode(field(card, {"Memory Partition"}));
  if (const gpu::GpuModel* model = detail::match_model(catalog, gpu.name, gpu.pci_device_id)) {
    gpu.catalog_id = model->id;
  }
  return gpu;
}

// "sclk clock speed:": "(1700Mhz)" -> 1700.
std::optional<std::int64_t> clock(const Card& card, const char* key) {
  const std::string path = card.path + "." + key;
  const auto raw = detail::text(detail::member_ci(*card.value, key), path);
  if (!raw) return std::nullopt;
  std::string_view v = detail::trim(*raw);
  if (v.size() >= 2 && v.front() == '(' && v.back() == ')') v = detail::trim(v.substr(1, v.size() - 2));
  if (detail::is_absent_text(v)) return std::nullopt;
  std::size_t n = 0;
  while (n < v.size() && (std::isdigit(static_cast<unsigned char>(v[n])) || v[n] == '.')) ++n;
  const auto number = detail::to_double(v.substr(0, n));
  if (!number) throw ReadError(path + ": expected a clock like \"(1700Mhz)\", got \"" + raw->substr(0, 40) + "\"");
  return detail::to_mhz({*number, std::string(detail::trim(v.substr(n)))}, path);
}

}  // namespace

Parsed<Inventory> parse_rocm_smi_json(std::string_view json, const gpu::Catalog& catalog) {
  return detail::guarded<Inventory>("rocm-smi --json", json, [&] {
    rapidjson::Document doc;
    detail::parse_json(doc, json);
    Inventory inventory;
    for (const Card& card : cards(doc)) inventory.gpus.push_back(read_card(card, catalog));
    if (const rapidjson::Value* system = detail::section(doc, "system", "$")) {
      inventory.driver_version =
          detail::text(detail::member_ci(*system, "Driver version"), "$.system.Driver version").value_or("");
    }
    return inventory;
  });
}

Parsed<std::vector<GpuMetrics>> parse_rocm_smi_metrics_json(std::string_view json) {
  return detail::guarded<std::vector<GpuMetrics>>("rocm-smi --json", json, [&] {
    rapidjson::Document doc;
    detail::parse_json(doc, json);
    std::vector<GpuMetrics> out;
    for (const Card& card : cards(doc)) {
      GpuMetrics m;
      m.index = card.index;
      if (auto q = number(card, {"Temperature (Sensor junction) (C)", "Temperature (Sensor edge) (C)"})) {
        m.temperature_celsius = q->value;
      }
      if (auto q = number(card, {"Current Socket Graphics Package Power (W)", "Average Graphics Package Power (W)"})) {
        m.power_watts = q->value;
      }
      if (auto q = number(card, {"GPU use (%)"})) m.utilization_percent = q->value;
      if (auto q = number(card, {"VRAM Total Used Memory (B)"})) {
        m.memory_used_mib = detail::to_mib(*q, "B", card.path + ".VRAM Total Used Memory (B)");
      }
      if (auto q = number(card, {"VRAM Total Memory (B)"})) {
        m.memory_total_mib = detail::to_mib(*q, "B", card.path + ".VRAM Total Memory (B)");
      }
      // rocm-smi prints no free VRAM; amd-smi derives it the same way.
      if (m.memory_total_mib && m.memory_used_mib && *m.memory_used_mib <= *m.memory_total_mib) {
        m.memory_free_mib = *m.memory_total_mib - *m.memory_used_mib;
      }
      if (auto q = number(card, {"Accumulated Energy (uJ)"})) {
        m.energy_millijoules = detail::to_millijoules(*q, "uJ", card.path + ".Accumulated Energy (uJ)");
      }
      m.sm_clock_mhz = clock(card, "sclk clock speed:");
      m.memory_clock_mhz = clock(card, "mclk clock speed:");
      out.push_back(m);
    }
    return out;
  });
}

}  // namespace gpupool::backend::amdsmi
