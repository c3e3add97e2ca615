// Each TenantQuota's figures as Prometheus gauges, in the resource's unit
// (devices; GPUs for gpupool.io/gpu), labelled namespace, name, resource:
//   gpupool_tenantquota_granted   what the quota is guaranteed
//   gpupool_tenantquota_used      admitted pods' requests, past the gate, not finished
//   gpupool_tenantquota_waiting   requests of pods held at the gate
//   gpupool_tenantquota_borrowed  used above granted
// and gpupool_tenantquota_info{namespace, name, pool} 1: the quota's pool, for
// joining the others to a pool in PromQL (the pool's alerts do).
// A series leaves the exposition when its quota or resource goes.
#pragma once

#include <map>
#include <set>
#include <string>
#include <tuple>

#include "gpupool/metrics/family.h"
#include "gpupool/metrics/gauge_function.h"
#include "gpupool/metrics/registry.h"
#include "gpupool/quota/amounts.h"

namespace gpupool::quota_controller {

struct QuotaFigures {
  quota::Amounts granted, used, waiting, borrowed;
  std::string pool;  // spec.poolRef.name
};

class QuotaMetrics {
 public:
  explicit QuotaMetrics(metrics::Registry& registry);
  // The figures of every quota now ("namespace/name" -> figures); series not in it are dropped.
  void publish(const std::map<std::string, QuotaFigures>& quotas);

 private:
  metrics::Family<metrics::GaugeFunction>* granted_;
  metrics::Family<metrics::GaugeFunction>* used_;
  metrics::Family<metrics::GaugeFunction>* waiting_;
  metrics::Family<metrics::GaugeFunction>* borrowed_;
  metrics::Family<metrics::GaugeFunction>* info_;
  std::set<std::tuple<metrics::Family<metrics::GaugeFunction>*, std::vector<std::string>>> shown_;
};

}  // namespace gpupool::quota_controller
