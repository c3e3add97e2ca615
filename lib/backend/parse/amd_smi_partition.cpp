// `amd-smi partition` (JSON and text) -> per-GPU partition modes (see amd_parse.h).
#include <algorithm>
#include <cctype>

#include "amd_json.h"

namespace gpupool::backend::amdsmi {

namespace {

using detail::ReadError;

// A mode field that may be a string or, in `amd-smi partition --memory`, an
// object {"caps": "NPS1, NPS4", "current": "NPS1"}.
std::string mode_of(const rapidjson::Value& row, std::initializer_list<const char*> keys, const std::string& path) {
  for (const char* key : keys) {
    const rapidjson::Value* v = detail::member(row, key);
    const std::string p = path + "." + key;
    if (v != nullptr && v->IsObject()) {
      v = detail::member(*v, "current");
      if (auto t = detail::text(v, p + ".current")) return normalize_partition_mode(*t);
      continue;
    }
    if (auto t = detail::text(v, p)) return normalize_partition_mode(*t);
  }
  return "";
}

PartitionModes read_row(const rapidjson::Value& row, const std::string& path) {
  PartitionModes m;
  m.index = detail::index_of(row, detail::member(row, "gpu_id") != nullptr ? "gpu_id" : "gpu", path);
  const rapidjson::Value* source = &row;
  std::string source_path = path;
  if (const rapidjson::Value* part = detail::section(row, "partition", path)) {  // static --partition
    source = part;
    source_path = path + ".partition";
  }
  m.compute = mode_of(*source, {"accelerator_type", "compute_partition", "accelerator_partition"}, source_path);
  m.memory = mode_of(*source, {"memory", "memory_partition"}, source_path);
  return m;
}

void check_unique(std::vector<PartitionModes>& rows) {
  std::sort(rows.begin(), rows.end(), [](const PartitionModes& a, const PartitionModes& b) { return a.index < b.index; });
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (rows[i].index == rows[i - 1].index) {
      throw ReadError("GPU " + std::to_string(rows[i].index) + " is listed twice");
    }
  }
}

std::vector<PartitionModes> rows_of(const rapidjson::Value& root) {
  const char* wrapper = "current_partition";
  if (root.IsObject() && detail::member(root, wrapper) == nullptr) wrapper = "gpu_data";
  std::vector<PartitionModes> rows;
  for (const detail::Entry& e : detail::gpu_entries(root, wrapper)) rows.push_back(read_row(*e.value, e.path));
  check_unique(rows);
  return rows;
}

std::vector<std::string_view> split_ws(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
  return out;
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

Parsed<std::vector<PartitionModes>> parse_partition_json(std::string_view json) {
  return detail::guarded<std::vector<PartitionModes>>("amd-smi partition --json", json, [&] {
    // ROCm 6.3 prints one JSON array per table; the first is the current one.
    rapidjson::Document doc;
    detail::parse_json_prefix(doc, json);
    return rows_of(doc);
  });
}

Parsed<std::vector<PartitionModes>> parse_partition_text(std::string_view text) {
  return detail::guarded<std::vector<PartitionModes>>("amd-smi partition", text, [&] {
    std::vector<PartitionModes> rows;
    int gpu_col = -1, memory_col = -1, compute_col = -1;
    std::size_t header_line = 0, line_no = 0;
    std::size_t pos = 0;
    while (pos <= text.size()) {
      const std::size_t end = std::min(text.find('\n', pos), text.size());
      const std::string_view line = text.substr(pos, end - pos);
      pos = end + 1;
      ++line_no;
      const auto cells = split_ws(line);
      if (gpu_col < 0) {  // looking for the header of the current-partition table
        for (std::size_t i = 0; i < cells.size(); ++i) {
          const std::string cell = upper(cells[i]);
          if (cell == "GPU_ID" || cell == "GPU") gpu_col = static_cast<int>(i);
          if (cell == "MEMORY") memory_col = static_cast<int>(i);
          if (cell == "ACCELERATOR_TYPE") compute_col = static_cast<int>(i);
        }
        if (gpu_col == 0 && (memory_col > 0 || compute_col > 0)) {
          header_line = line_no;
        } else {
          gpu_col = memory_col = compute_col = -1;
        }
        if (end == text.size()) break;
        continue;
      }
      if (cells.empty() || !std::isdigit(static_cast<unsigned char>(cells[0][0]))) break;  // end of the table
      if (rows.size() >= kMaxGpus) throw ReadError("line " + std::to_string(line_no) + ": too many GPUs");
      const int needed = std::max({gpu_col, memory_col, compute_col});
      if (static_cast<int>(cells.size()) <= needed) {
        throw ReadError("line " + std::to_string(line_no) + ": expected " + std::to_string(needed + 1) +
                        " columns under the header of line " + std::to_string(header_line) + ", got " +
                        std::to_string(cells.size()));
      }
      PartitionModes m;
      const auto index = detail::to_double(cells[0]);
      if (!index || *index < 0 || *index > 1e6 || static_cast<double>(static_cast<int>(*index)) != *index) {
        throw ReadError("line " + std::to_string(line_no) + ": expected a GPU index, got \"" +
                        std::string(cells[0].substr(0, 40)) + "\"");
      }
      m.index = static_cast<int>(*index);
      if (memory_col > 0) m.memory = normalize_partition_mode(cells[static_cast<std::size_t>(memory_col)]);
      if (compute_col > 0) m.compute = normalize_partition_mode(cells[static_cast<std::size_t>(compute_col)]);
      rows.push_back(std::move(m));
      if (end == text.size()) break;
    }
    if (header_line == 0) {
      throw ReadError("line " + std::to_string(line_no) +
                      ": no GPU_ID / MEMORY / ACCELERATOR_TYPE table header in the output");
    }
    check_unique(rows);
    return rows;
  });
}

}  // namespace gpupool::backend::amdsmi
