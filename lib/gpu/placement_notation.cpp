#include "placement_notation.h"

#include "text.h"

namespace gpupool::gpu {

std::variant<std::vector<MigPlacement>, std::string> parse_placements(std::string_view text) {
  const std::string expected = "expected \"{start,start,...}:size\" as nvidia-smi mig -lgipp prints it, got \"" +
                               std::string(text) + "\"";
  const auto colon = text.rfind(':');
  if (text.size() < 5 || text.front() != '{' || colon == std::string_view::npos || colon < 2 ||
      text[colon - 1] != '}') {
    return expected;
  }
  const auto size = text::parse_non_negative(text.substr(colon + 1));
  if (!size) return expected;
  if (*size == 0) return "placement size must be positive in \"" + std::string(text) + "\"";

  std::vector<MigPlacement> out;
  std::string_view starts = text.substr(1, colon - 2);
  while (true) {
    const auto comma = starts.find(',');
    const auto start = text::parse_non_negative(starts.substr(0, comma));
    if (!start) return expected;
    if (!out.empty() && *start <= out.back().start) {
      return "placement starts must be strictly ascending in \"" + std::string(text) + "\"";
    }
    out.push_back({*start, *size});
    if (comma == std::string_view::npos) break;
    starts.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace gpupool::gpu
