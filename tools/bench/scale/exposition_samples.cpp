#include "exposition_samples.h"

#include <cstdlib>

namespace gpupool::bench {

void for_each_sample(std::string_view exposition,
                     const std::function<void(std::string_view metric, std::string_view labels, double value)>& on_sample) {
  while (!exposition.empty()) {
    const auto eol = exposition.find('\n');
    const std::string_view line = exposition.substr(0, eol);
    exposition = eol == std::string_view::npos ? std::string_view{} : exposition.substr(eol + 1);
    if (line.empty() || line.front() == '#') continue;
    std::string_view metric, labels, rest;
    const auto brace = line.find('{');
    if (brace != std::string_view::npos) {
      const auto close = line.find('}', brace);
      if (close == std::string_view::npos) continue;
      metric = line.substr(0, brace);
      labels = line.substr(brace + 1, close - brace - 1);
      rest = line.substr(close + 1);
    } else {
      const auto space = line.find(' ');
      if (space == std::string_view::npos) continue;
      metric = line.substr(0, space);
      rest = line.substr(space);
    }
    const std::string value(rest);
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || metric.empty()) continue;
    on_sample(metric, labels, v);
  }
}

std::string label_value(std::string_view labels, std::string_view key) {
  // At the start or after a comma, so that `name` never matches `hostname`.
  for (std::size_t at = 0; at < labels.size();) {
    if (labels.substr(at, key.size()) == key && labels.substr(at + key.size(), 2) == "=\"") {
      const auto start = at + key.size() + 2;
      const auto end = labels.find('"', start);
      return end == std::string_view::npos ? "" : std::string(labels.substr(start, end - start));
    }
    // The next label: past this one's quoted value.
    const auto quote = labels.find('"', at);
    if (quote == std::string_view::npos) break;
    const auto closing = labels.find('"', quote + 1);
    if (closing == std::string_view::npos) break;
    at = closing + 1;
    while (at < labels.size() && (labels[at] == ',' || labels[at] == ' ')) ++at;
  }
  return "";
}

}  // namespace gpupool::bench
