// `amd-smi process --json` -> GpuProcess list (see amd_parse.h).
#include <algorithm>

#include "amd_json.h"

namespace gpupool::backend::amdsmi {

namespace {

using detail::ReadError;

std::int64_t vram_mib(const rapidjson::Value& info, const std::string& path) {
  if (const rapidjson::Value* usage = detail::section(info, "memory_usage", path)) {
    const std::string p = path + ".memory_usage.vram_mem";
    if (auto q = detail::quantity(detail::member(*usage, "vram_mem"), p)) return detail::to_mib(*q, "B", p).value_or(0);
  }
  for (const char* key : {"mem_usage", "mem"}) {  // older releases: the process's total GPU memory
    const std::string p = path + "." + key;
    if (auto q = detail::quantity(detail::member(info, key), p)) return detail::to_mib(*q, "B", p).value_or(0);
  }
  return 0;
}

void read_process(const rapidjson::Value& item, const std::string& path, int gpu, std::vector<GpuProcess>& out) {
  if (!item.IsObject()) throw ReadError(path + ": expected an object, got " + detail::type_name(item));
  const rapidjson::Value* info = &item;
  std::string info_path = path;
  if (const rapidjson::Value* wrapped = detail::member(item, "process_info")) {
    if (wrapped->IsString() || wrapped->IsNull()) return;  // "No running processes detected", "N/A"
    if (!wrapped->IsObject()) {
      throw ReadError(path + ".process_info: expected an object, got " + detail::type_name(*wrapped));
    }
    info = wrapped;
    info_path = path + ".process_info";
  }
  const auto pid = detail::quantity(detail::member(*info, "pid"), info_path + ".pid");
  if (!pid) return;  // a placeholder row without a process
  if (pid->value < 0 || pid->value > 4294967295.0 || !pid->unit.empty()) {
    throw ReadError(info_path + ".pid: expected a process id");
  }
  if (out.size() >= kMaxProcesses) throw ReadError(info_path + ": more than " + std::to_string(kMaxProcesses) + " processes");
  GpuProcess p;
  p.gpu_index = gpu;
  p.pid = static_cast<std::uint32_t>(pid->value);
  p.used_memory_mib = vram_mib(*info, info_path);
  out.push_back(std::move(p));
}

}  // namespace

Parsed<std::vector<GpuProcess>> parse_process_json(std::string_view json) {
  return detail::guarded<std::vector<GpuProcess>>("amd-smi process --json", json, [&] {
    rapidjson::Document doc;
    detail::parse_json(doc, json);
    std::vector<GpuProcess> out;
    for (const detail::Entry& e : detail::gpu_entries(doc)) {
      const int gpu = detail::index_of(*e.value, "gpu", e.path);
      const rapidjson::Value* list = detail::member(*e.value, "process_list");
      const std::string path = e.path + ".process_list";
      if (list == nullptr || list->IsNull() || list->IsString()) continue;  // none, or "N/A"
      if (!list->IsArray()) throw ReadError(path + ": expected an array, got " + detail::type_name(*list));
      for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
        read_process((*list)[i], path + "[" + std::to_string(i) + "]", gpu, out);
      }
    }
    std::sort(out.begin(), out.end(), [](const GpuProcess& a, const GpuProcess& b) {
      return a.gpu_index != b.gpu_index ? a.gpu_index < b.gpu_index : a.pid < b.pid;
    });
    return out;
  });
}

}  // namespace gpupool::backend::amdsmi
