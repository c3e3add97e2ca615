// A point-in-time copy of metric families: what a registry hands to the
// exposition code, and what tests can build by hand.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gpupool::metrics {

// What a family holds. GaugeFunction is exposed as a gauge; it is a separate
// kind so that a name cannot be registered as both.
enum class MetricKind { Counter, Gauge, Histogram, GaugeFunction };

// "counter", "gauge", "histogram" or "gauge function" (for messages).
std::string_view kind_name(MetricKind kind);
// The # TYPE word: "counter", "gauge" or "histogram".
std::string_view exposition_type(MetricKind kind);

// One child: the values of the family's labels, in label-name order, and its
// reading.
struct ChildSnapshot {
  std::vector<std::string> label_values;
  double value = 0;  // counters and gauges
  // Histograms: cumulative counts, one per finite upper bound of the family
  // (the +Inf bucket is `count`), the sum and the count of observations.
  std::vector<std::uint64_t> cumulative_counts;
  double sum = 0;
  std::uint64_t count = 0;
};

struct FamilySnapshot {
  std::string name;
  std::string help;
  MetricKind kind = MetricKind::Gauge;
  std::vector<std::string> label_names;
  std::vector<double> bucket_bounds;  // histograms: finite, strictly increasing
  std::vector<ChildSnapshot> children;
};

}  // namespace gpupool::metrics
