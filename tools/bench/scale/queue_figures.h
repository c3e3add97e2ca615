// Where a controller's reconcile time went, from its /metrics exposition
// (gpupool-scale-bench scrapes the controller before stopping it). Pure.
//
// Per controller name (the label `name` of workqueue_* and `controller` of
// controller_runtime_*): passes run (workqueue_work_duration_seconds_count),
// their mean length (its _sum / _count), the mean time a key waited in
// the queue before its pass (workqueue_queue_duration_seconds _sum / _count),
// and what it holds now (workqueue_depth, workqueue_unfinished_work_seconds).
// A pass that waits long behind others' passes shows here, not in its length.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace gpupool::bench {

struct QueueFigures {
  double passes = 0;
  double mean_pass_ms = 0;   // 0 when no pass ran
  double mean_wait_ms = 0;   // 0 when no key was taken
  double depth = 0;          // workqueue_depth: keys waiting now
  double unfinished_s = 0;   // workqueue_unfinished_work_seconds: passes running now (0: none)
  bool idle() const { return depth == 0 && unfinished_s == 0; }
};

// Controllers found in `exposition` (Prometheus text format) with a pass
// or a wait in the histograms; lines that are not samples of these are skipped, so any exposition
// parses (an empty one: an empty map).
std::map<std::string, QueueFigures> queue_figures(std::string_view exposition);

}  // namespace gpupool::bench
