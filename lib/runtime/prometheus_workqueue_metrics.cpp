#include "gpupool/runtime/prometheus_workqueue_metrics.h"

namespace gpupool::runtime {
namespace {

class QueueMetrics final : public WorkQueueMetrics {
 public:
  QueueMetrics(metrics::Gauge& depth, metrics::Counter& adds, metrics::Histogram& queue_duration,
               metrics::Histogram& work_duration, metrics::Gauge& unfinished_work,
               metrics::Gauge& longest_running_processor, metrics::Counter& retries)
      : depth_(depth),
        adds_(adds),
        queue_duration_(queue_duration),
        work_duration_(work_duration),
        unfinished_work_(unfinished_work),
        longest_running_processor_(longest_running_processor),
        retries_(retries) {}

  void set_depth(long depth) override { depth_.set(static_cast<double>(depth)); }
  void add() override { adds_.inc(); }
  void observe_queue_seconds(double seconds) override { queue_duration_.observe(seconds); }
  void observe_work_seconds(double seconds) override { work_duration_.observe(seconds); }
  void set_unfinished_work_seconds(double seconds) override { unfinished_work_.set(seconds); }
  void set_longest_running_processor_seconds(double seconds) override { longest_running_processor_.set(seconds); }
  void retry() override { retries_.inc(); }

 private:
  metrics::Gauge& depth_;
  metrics::Counter& adds_;
  metrics::Histogram& queue_duration_;
  metrics::Histogram& work_duration_;
  metrics::Gauge& unfinished_work_;
  metrics::Gauge& longest_running_processor_;
  metrics::Counter& retries_;
};

}  // namespace

std::vector<double> workqueue_buckets() { return metrics::exponential_buckets(10e-9, 10, 10); }

// Help texts are component-base's.
PrometheusWorkQueueMetrics::PrometheusWorkQueueMetrics(metrics::Registry& registry)
    : depth_(registry.gauge("workqueue_depth", "Current depth of workqueue", {"name"})),
      adds_(registry.counter("workqueue_adds_total", "Total number of adds handled by workqueue", {"name"})),
      queue_duration_(registry.histogram("workqueue_queue_duration_seconds",
                                         "How long in seconds an item stays in workqueue before being requested.",
                                         {"name"}, workqueue_buckets())),
      work_duration_(registry.histogram("workqueue_work_duration_seconds",
                                        "How long in seconds processing an item from workqueue takes.", {"name"},
                                        workqueue_buckets())),
      unfinished_work_(registry.gauge("workqueue_unfinished_work_seconds",
                                      "How many seconds of work has done that is in progress and hasn't been "
                                      "observed by work_duration. Large values indicate stuck threads. One can "
                                      "deduce the number of stuck threads by observing the rate at which this "
                                      "increases.",
                                      {"name"})),
      longest_running_processor_(registry.gauge("workqueue_longest_running_processor_seconds",
                                                "How many seconds has the longest running processor for workqueue "
                                                "been running.",
                                                {"name"})),
      retries_(registry.counter("workqueue_retries_total", "Total number of retries handled by workqueue",
                                {"name"})) {}

std::unique_ptr<WorkQueueMetrics> PrometheusWorkQueueMetrics::for_queue(const std::string& name) {
  return std::make_unique<QueueMetrics>(depth_.with({name}), adds_.with({name}), queue_duration_.with({name}),
                                        work_duration_.with({name}), unfinished_work_.with({name}),
                                        longest_running_processor_.with({name}), retries_.with({name}));
}

}  // namespace gpupool::runtime
