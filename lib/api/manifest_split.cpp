#include "manifest_split.h"

namespace gpupool::api::detail {
namespace {

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool is_separator(std::string_view line) {
  if (line.substr(0, 3) != "---") return false;
  const std::string_view rest = trim(line.substr(3));
  return rest.empty() || rest[0] == '#';
}

}  // namespace

std::vector<ManifestChunk> manifest_split_documents(std::string_view text) {
  std::vector<ManifestChunk> chunks;
  std::size_t line_no = 1;
  std::size_t pos = 0;
  ManifestChunk current{text.substr(0, 0), 1, true};
  std::size_t start = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find('\n', pos);
    const bool last = end == std::string_view::npos;
    if (last) end = text.size();
    const std::string_view line = text.substr(pos, end - pos);
    if (is_separator(line)) {
      current.text = text.substr(start, pos - start);
      chunks.push_back(current);
      start = last ? text.size() : end + 1;
      current = ManifestChunk{{}, line_no + 1, true};
    } else {
      const std::string_view t = trim(line);
      if (!t.empty() && t[0] != '#') current.blank = false;
    }
    if (last) break;
    pos = end + 1;
    ++line_no;
  }
  current.text = text.substr(start);
  chunks.push_back(current);
  return chunks;
}

}  // namespace gpupool::api::detail
