// What a work queue reports, as client-go's workqueue.MetricsProvider does.
// The queue calls these; a Prometheus-backed implementation exposes them as
// workqueue_depth, workqueue_adds_total, workqueue_queue_duration_seconds,
// workqueue_work_duration_seconds, workqueue_unfinished_work_seconds,
// workqueue_longest_running_processor_seconds and workqueue_retries_total,
// each labelled with the queue's name. Implementations are thread-safe.
#pragma once

#include <memory>
#include <string>

namespace gpupool::runtime {

class WorkQueueMetrics {
 public:
  virtual ~WorkQueueMetrics() = default;
  virtual void set_depth(long depth) = 0;
  virtual void add() = 0;                                 // an item was added (not deduplicated away)
  virtual void observe_queue_seconds(double seconds) = 0;  // time from add to get
  virtual void observe_work_seconds(double seconds) = 0;   // time from get to done
  virtual void set_unfinished_work_seconds(double seconds) = 0;
  virtual void set_longest_running_processor_seconds(double seconds) = 0;
  virtual void retry() = 0;  // add_rate_limited was called
};

// Creates the metrics of one named queue.
class WorkQueueMetricsProvider {
 public:
  virtual ~WorkQueueMetricsProvider() = default;
  virtual std::unique_ptr<WorkQueueMetrics> for_queue(const std::string& name) = 0;
};

// Reports nothing: the default, and for tests.
class NoWorkQueueMetrics final : public WorkQueueMetricsProvider {
 public:
  std::unique_ptr<WorkQueueMetrics> for_queue(const std::string& name) override;
};

}  // namespace gpupool::runtime
