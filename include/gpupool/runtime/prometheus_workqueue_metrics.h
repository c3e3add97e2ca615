// Work queue metrics as Prometheus families, as client-go's queues report
// them through component-base (k8s.io/component-base/metrics/prometheus/
// workqueue), each labelled with the queue's name:
//
//   workqueue_depth{name}                              gauge
//   workqueue_adds_total{name}                         counter
//   workqueue_queue_duration_seconds{name}             histogram
//   workqueue_work_duration_seconds{name}              histogram
//   workqueue_unfinished_work_seconds{name}            gauge
//   workqueue_longest_running_processor_seconds{name}  gauge
//   workqueue_retries_total{name}                      counter
//
// Histogram buckets: 1e-08 .. 10, ten, each 10 times the last (component-base's
// ExponentialBuckets(10e-9, 10, 10)). Where controller-runtime differs: since
// v0.19 it labels these {name, controller} (both the queue's name), depth also
// {priority}, and its histograms go on to 1e3 (12 buckets); we follow
// component-base, whose label set every version of the dashboards accepts.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gpupool/metrics/registry.h"
#include "gpupool/runtime/workqueue_metrics.h"

namespace gpupool::runtime {

// The buckets of the two workqueue histograms.
std::vector<double> workqueue_buckets();

class PrometheusWorkQueueMetrics final : public WorkQueueMetricsProvider {
 public:
  // Registers the families in `registry` (or finds them there). The registry
  // must outlive this provider and every queue's metrics.
  explicit PrometheusWorkQueueMetrics(metrics::Registry& registry = metrics::default_registry());

  // The children labelled name=`name`, created now (so the queue's series
  // exist at 0 from the start). Two queues of one name share them.
  std::unique_ptr<WorkQueueMetrics> for_queue(const std::string& name) override;

 private:
  metrics::Family<metrics::Gauge>& depth_;
  metrics::Family<metrics::Counter>& adds_;
  metrics::Family<metrics::Histogram>& queue_duration_;
  metrics::Family<metrics::Histogram>& work_duration_;
  metrics::Family<metrics::Gauge>& unfinished_work_;
  metrics::Family<metrics::Gauge>& longest_running_processor_;
  metrics::Family<metrics::Counter>& retries_;
};

}  // namespace gpupool::runtime
