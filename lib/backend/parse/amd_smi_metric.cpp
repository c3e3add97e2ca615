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
  if (auto used = first_quantity(detail::section(entry, "mem_usage", p), {"used_vram"}, p + ".mem_usage")) {
    m.memory_used_mib = detail::to_mib(*used, "MB", p + ".mem_usage.used_vram");
  }
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
