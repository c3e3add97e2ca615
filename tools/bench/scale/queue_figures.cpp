#include "queue_figures.h"

#include "exposition_samples.h"

namespace gpupool::bench {
namespace {

struct Sums {
  double work_sum = 0, work_count = 0, wait_sum = 0, wait_count = 0, depth = 0, unfinished_s = 0;
};

}  // namespace

std::map<std::string, QueueFigures> queue_figures(std::string_view exposition) {
  std::map<std::string, Sums> sums;
  for_each_sample(exposition, [&](std::string_view metric, std::string_view labels, double v) {
    double Sums::*slot = nullptr;
    if (metric == "workqueue_work_duration_seconds_sum") slot = &Sums::work_sum;
    if (metric == "workqueue_work_duration_seconds_count") slot = &Sums::work_count;
    if (metric == "workqueue_queue_duration_seconds_sum") slot = &Sums::wait_sum;
    if (metric == "workqueue_queue_duration_seconds_count") slot = &Sums::wait_count;
    if (metric == "workqueue_depth") slot = &Sums::depth;
    if (metric == "workqueue_unfinished_work_seconds") slot = &Sums::unfinished_s;
    if (slot == nullptr) return;
    const std::string name = label_value(labels, "name");
    if (!name.empty()) sums[name].*slot = v;
  });
  std::map<std::string, QueueFigures> out;
  for (const auto& [name, s] : sums) {
    if (s.work_count == 0 && s.wait_count == 0) continue;
    QueueFigures f;
    f.passes = s.work_count;
    if (s.work_count > 0) f.mean_pass_ms = s.work_sum / s.work_count * 1000;
    if (s.wait_count > 0) f.mean_wait_ms = s.wait_sum / s.wait_count * 1000;
    f.depth = s.depth;
    f.unfinished_s = s.unfinished_s;
    out[name] = f;
  }
  return out;
}

}  // namespace gpupool::bench
