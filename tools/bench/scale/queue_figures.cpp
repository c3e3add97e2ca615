#include "queue_figures.h"

#include <cstdlib>

namespace gpupool::bench {
namespace {

struct Sums {
  double work_sum = 0, work_count = 0, wait_sum = 0, wait_count = 0;
};

// `name="x"` inside a sample's labels, or "".
std::string label_value(std::string_view labels, std::string_view key) {
  const std::string needle = std::string(key) + "=\"";
  const auto at = labels.find(needle);
  if (at == std::string_view::npos) return "";
  const auto start = at + needle.size();
  const auto end = labels.find('"', start);
  return end == std::string_view::npos ? "" : std::string(labels.substr(start, end - start));
}

}  // namespace

std::map<std::string, QueueFigures> queue_figures(std::string_view exposition) {
  std::map<std::string, Sums> sums;
  while (!exposition.empty()) {
    const auto eol = exposition.find('\n');
    std::string_view line = exposition.substr(0, eol);
    exposition = eol == std::string_view::npos ? std::string_view{} : exposition.substr(eol + 1);
    if (line.empty() || line.front() == '#') continue;
    const auto brace = line.find('{');
    const auto close = line.find('}');
    if (brace == std::string_view::npos || close == std::string_view::npos || close < brace) continue;
    const std::string_view metric = line.substr(0, brace);
    double* slot = nullptr;
    const std::string name = label_value(line.substr(brace, close - brace), "name");
    if (name.empty()) continue;
    auto& s = sums[name];
    if (metric == "workqueue_work_duration_seconds_sum") slot = &s.work_sum;
    if (metric == "workqueue_work_duration_seconds_count") slot = &s.work_count;
    if (metric == "workqueue_queue_duration_seconds_sum") slot = &s.wait_sum;
    if (metric == "workqueue_queue_duration_seconds_count") slot = &s.wait_count;
    if (slot == nullptr) continue;
    const std::string value(line.substr(close + 1));
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (end != value.c_str()) *slot = v;
  }
  std::map<std::string, QueueFigures> out;
  for (const auto& [name, s] : sums) {
    if (s.work_count == 0 && s.wait_count == 0) continue;
    QueueFigures f;
    f.passes = s.work_count;
    if (s.work_count > 0) f.mean_pass_ms = s.work_sum / s.work_count * 1000;
    if (s.wait_count > 0) f.mean_wait_ms = s.wait_sum / s.wait_count * 1000;
    out[name] = f;
  }
  return out;
}

}  // namespace gpupool::bench
