// `amd-smi metric --json` -> GpuMetrics (see amd_parse.h).
#include <algorithm>

#include "amd_json.h"

namespace gpupool::backend::amdsmi {

namespace {

using detail::Quantity;

// The first of `keys` in `section` that has a value.
std::optional<Quantity> first_quantity(const rapidjson::Value* sec, std::initializer_list<const char*> keys,
                                       const std::string& path) {
  if (sec == nullptr) return std::nullopt;
  for (const char* key : keys) {
    if (auto q = detail::quantity(detail::member(*sec, key), path + "." + key)) return q;
  }
  return std::nullopt;
}

std::optional<std::int64_t> count(const rapidjson::Value* sec, std::initializer_list<const char*> keys,
                                  const std::string& path) {
  if (auto q = first_quantity(sec, keys, path)) {
    const auto n = detail::to_int64(q->value);
    if (!n || *n < 0) throw detail::ReadError(path + ": ECC count out of range");
    return n;
  }
  return std::nullopt;
}

std::optional<double> value(const std::optional<Quantity>& q) {
  if (!q) return std::nullopt;
  return q->value;
}

// The current clock of the first of `domains` in the "clock" section that
// has one: {"gfx_0": {"clk": {"value": 1420, "unit": "MHz"}, ...}} (ROCm 6.1
// and later, one entry per XCD / memory domain) or {"gfx": {"clk": 1420}}
// (ROCm 6.0, where the memory domain is "mem" or "MEM").
std::optional<std::int64_t> clock(const rapidjson::Value* sec, std::initializer_list<const char*> domains,
                                  const std::string& path) {
  if (sec == nullptr) return std::nullopt;
  for (const char* domain : domains) {
    const std::string at = path + "." + domain;
    const rapidjson::Value* d = detail::section(*sec, domain, path);
    if (d == nullptr) {
      if (const rapidjson::Value* ci = detail::member_ci(*sec, domain); ci != nullptr && ci->IsObject()) d = ci;
    }
    if (d == nullptr) continue;
    if (auto q = detail::quantity(detail::member(*d, "clk"), at + ".clk")) return detail::to_mhz(*q, at + ".clk");
  }
  return std::nullopt;
}

GpuMetrics read_gpu(const detail::Entry& e) {
  const rapidjson::Value& entry = *e.value;
  GpuMetrics m;
  m.index = detail::index_of(entry, "gpu", e.path);
  const std::string& p = e.path;
  m.utilization_percent =
      value(first_quantity(detail::section(entry, "usage", p), {"gfx_activity", "gfx_usage"}, p + ".usage"));
  m.power_watts = value(first_quantity(detail::section(entry, "power", p),
                                       {"socket_power", "current_socket_power", "current_power", "average_socket_power"},
                                       p + ".power"));
  m.temperature_celsius =
      value(first_quantity(detail::section(entry, "temperature", p), {"hotspot", "edge"}, p + ".temperature"));
  const rapidjson::Value* mem = detail::section(entry, "mem_usage", p);
  if (auto used = first_quantity(mem, {"used_vram"}, p + ".mem_usage")) {
    m.memory_used_mib = detail::to_mib(*used, "MB", p + ".mem_usage.used_vram");
  }
  if (auto free = first_quantity(mem, {"free_vram"}, p + ".mem_usage")) {
    m.memory_free_mib = detail::to_mib(*free, "MB", p + ".mem_usage.free_vram");
  }
  if (auto total = first_quantity(mem, {"total_vram"}, p + ".mem_usage")) {
    m.memory_total_mib = detail::to_mib(*total, "MB", p + ".mem_usage.total_vram");
  }
  // amd-smi prints joules (the accumulator times its resolution).
  if (auto energy = first_quantity(detail::section(entry, "energy", p), {"total_energy_consumption"}, p + ".energy")) {
    m.energy_millijoules = detail::to_millijoules(*energy, "J", p + ".energy.total_energy_consumption");
  }
  const rapidjson::Value* clocks = detail::section(entry, "clock", p);
  m.sm_clock_mhz = clock(clocks, {"gfx_0", "gfx"}, p + ".clock");
  m.memory_clock_mhz = clock(clocks, {"mem_0", "mem"}, p + ".clock");
  const rapidjson::Value* ecc = detail::section(entry, "ecc", p);
  m.ecc_corrected_total = count(ecc, {"total_correctable_count", "total_correctable"}, p + ".ecc");
  m.ecc_uncorrected_total = count(ecc, {"total_uncorrectable_count", "total_uncorrectable"}, p + ".ecc");
  return m;
}

}  // namespace

Parsed<std::vector<GpuMetrics>> parse_metric_json(std::string_view json) {
  return detail::guarded<std::vector<GpuMetrics>>("amd-smi metric --json", json, [&] {
    rapidjson::Document doc;
    detail::parse_json(doc, json);
    std::vector<GpuMetrics> out;
    for (const detail::Entry& e : detail::gpu_entries(doc)) out.push_back(read_gpu(e));
    std::sort(out.begin(), out.end(), [](const GpuMetrics& a, const GpuMetrics& b) { return a.index < b.index; });
    for (std::size_t i = 1; i < out.size(); ++i) {
      if (out[i].index == out[i - 1].index) {
        throw detail::ReadError("GPU " + std::to_string(out[i].index) + " is listed twice");
      }
    }
    return out;
  });
}

}  // namespace gpupool::backend::amdsmi
