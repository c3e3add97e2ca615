#include "gpupool/metrics/snapshot.h"

namespace gpupool::metrics {

std::string_view kind_name(MetricKind kind) {
  switch (kind) {
    case MetricKind::Counter: return "counter";
    case MetricKind::Gauge: return "gauge";
    case MetricKind::Histogram: return "histogram";
    case MetricKind::GaugeFunction: return "gauge function";
  }
  return "unknown";
}

std::string_view exposition_type(MetricKind kind) {
  switch (kind) {
    case MetricKind::Counter: return "counter";
    case MetricKind::Gauge:
    case MetricKind::GaugeFunction: return "gauge";
    case MetricKind::Histogram: return "histogram";
  }
  return "untyped";
}

}  // namespace gpupool::metrics
