// A set of metric families, scraped together. Registration is idempotent:
// asking again for a name with the same kind, label names (and, for
// histograms, buckets) returns the family already there, so independent
// components can each "register" what they use. Asking with a different kind,
// label names or buckets throws std::invalid_argument naming the metric, as do
// invalid names (see names.h), repeated label names, the label "le" on a
// histogram, and a name whose samples would clash with another family's
// (a histogram "x" writes x_bucket, x_sum and x_count). Help text is taken
// from the first registration. Thread-safe; families live as long as the
// registry.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gpupool/metrics/buckets.h"
#include "gpupool/metrics/counter.h"
#include "gpupool/metrics/family.h"
#include "gpupool/metrics/gauge.h"
#include "gpupool/metrics/gauge_function.h"
#include "gpupool/metrics/histogram.h"
#include "gpupool/metrics/snapshot.h"

namespace gpupool::metrics {

class Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  // A family without labels has its one child from the start, so it is
  // exposed (at 0) before first use; a labelled family shows up once a child
  // exists.
  Family<Counter>& counter(const std::string& name, const std::string& help,
                           const std::vector<std::string>& label_names = {});
  Family<Gauge>& gauge(const std::string& name, const std::string& help,
                       const std::vector<std::string>& label_names = {});
  // `buckets`: finite, strictly increasing upper bounds; a trailing +Inf is
  // dropped (that bucket always exists); empty means only +Inf.
  Family<Histogram>& histogram(const std::string& name, const std::string& help,
                               const std::vector<std::string>& label_names = {},
                               std::vector<double> buckets = default_buckets());
  // Gauges computed at scrape time: set each child's function.
  Family<GaugeFunction>& gauge_function_family(const std::string& name, const std::string& help,
                                               const std::vector<std::string>& label_names);
  // The unlabelled case in one call: registers and sets the function.
  GaugeFunction& gauge_function(const std::string& name, const std::string& help, std::function<double()> fn);

  // Families built elsewhere (the agent's GPU families, rebuilt once per
  // collection interval), merged into collect(). A collector's family with the
  // name of a registered one, or of an earlier collector's, is dropped, so the
  // exposition never holds a name twice. `fn` is called on every collect()
  // and must be thread-safe; it lives as long as the registry.
  void add_collector(std::function<std::vector<FamilySnapshot>()> fn);

  // Every family, sorted by name.
  std::vector<FamilySnapshot> collect() const;

 private:
  // Returns the family `name` if it exists with this shape, else builds one
  // with `make`; throws as described above.
  FamilyBase& find_or_add(const std::string& name, MetricKind kind, const std::vector<std::string>& label_names,
                          const std::vector<double>& buckets,
                          const std::function<std::unique_ptr<FamilyBase>()>& make);

  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<FamilyBase>> families_;
  std::vector<std::function<std::vector<FamilySnapshot>()>> collectors_;
};

// The process-wide registry that the operator's /metrics serves. Never
// destroyed, so references to its families stay valid until exit.
Registry& default_registry();

}  // namespace gpupool::metrics
