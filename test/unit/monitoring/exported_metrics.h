// The metric families the project exports, with their label names, built
// from the code that exports them wherever the test can link it:
// - the agent's GPU families: exporter::gpu_families on a sample that has
//   every kind of device and value (both dcgm-exporter namings), plus the
//   labels its scrape adds (pool, node, job, instance; monitoring/scrape.h);
// - the controller's: QuotaMetrics (the quota gauges and
//   gpupool_pool_allocated), ControllerMetrics and the work queue families
//   registered in a registry of the test's own;
// - the pool controller's (PoolMetrics and the HealthReconciler's counter,
//   lib/pool_controller, which unit_monitoring does not link): a list here,
//   each name checked to be registered in lib/pool_controller's sources;
// - Prometheus' own `up`.
// Header-only: test/CMakeLists.txt compiles only *_test.cpp files.
#pragma once

#include "support/gpu_sample.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gpupool/exporter/gpu_families.h"
#include "gpupool/metrics/controller_metrics.h"
#include "gpupool/metrics/registry.h"
#include "gpupool/quota_controller/quota_metrics.h"
#include "gpupool/runtime/prometheus_workqueue_metrics.h"
#include "promql_names.h"

namespace gpupool::monitoring::testing {

// Labels every scraped series gets from its target.
inline const std::set<std::string> kTargetLabels = {"job", "instance"};
// Labels the agents' ServiceMonitor adds to every agent series (scrape.h).
inline const std::set<std::string> kAgentTargetLabels = {"job", "instance", "pool", "node"};

// include/gpupool/pool_controller/pool_metrics.h and health_reconciler.h:
// name -> labels.
inline const std::map<std::string, std::set<std::string>> kPoolFamilies = {
    {"gpupool_pool_capacity", {"pool", "resource"}},  {"gpupool_pool_granted", {"pool", "resource"}},
    {"gpupool_pool_member_nodes", {"pool"}},         {"gpupool_pool_nodes", {"pool", "state"}},
    {"gpupool_pool_rollout_nodes", {"pool", "state"}}, {"gpupool_pool_rollout_paused", {"pool"}},
    {"gpupool_health_remediations_total", {"pool", "action"}},
    {"gpupool_pool_rollout_window_open", {"pool"}},    {"gpupool_node_heartbeat_timestamp_seconds", {"pool", "node"}},
};

// A node with every kind of device and every value known: an A100 not in
// MIG mode (held by two containers), an A100 in MIG mode with two instances,
// an MI300X; XIDs, health, clock events.
inline exporter::GpuSample full_sample() {
  exporter::GpuSample s = test::two_a100_sample();
  // Every value known on the MIG GPU and both its instances too.
  backend::GpuMetrics& m0 = s.metrics[0];
  backend::GpuMetrics& m1 = s.metrics[1];
  std::vector<backend::InstanceMetrics> instances = m1.instances;
  m1 = m0;
  m1.index = 1;
  m1.utilization_percent.reset();
  m1.memory_used_mib.reset();
  m1.memory_free_mib.reset();
  m1.memory_total_mib.reset();
  instances[0].memory_total_mib = 40 * 1024;
  instances[1] = instances[0];
  instances[1].gpu_instance_id = 2;
  m1.instances = instances;
  // An MI300X.
  backend::GpuInfo g2;
  g2.index = 2;
  g2.uuid = "GPU-2222";
  g2.name = "AMD Instinct MI300X";
  g2.vendor = gpu::Vendor::amd;
  g2.pci_bus_id = "0000:0c:00.0";
  g2.compute_partition = "SPX";
  g2.memory_partition = "NPS1";
  s.inventory.gpus.push_back(g2);
  backend::GpuMetrics m2 = m0;
  m2.index = 2;
  m2.clock_event_reasons.reset();
  m2.clock_event_reasons_mask.reset();
  s.metrics.push_back(m2);
  s.health[2] = api::GPUHealth::healthy;
  // GPU 0 shared by two containers.
  s.users.gpus[0] = {{"train", "p0", "main"}, {"train", "p0", "sidecar"}};
  return s;
}

inline void add_families(Catalog& catalog, const std::vector<metrics::FamilySnapshot>& families,
                         const std::set<std::string>& target_labels) {
  for (const auto& f : families) {
    std::set<std::string> labels(f.label_names.begin(), f.label_names.end());
    labels.insert(target_labels.begin(), target_labels.end());
    if (f.kind == metrics::MetricKind::Histogram) {
      catalog[f.name + "_sum"] = labels;
      catalog[f.name + "_count"] = labels;
      labels.insert("le");
      catalog[f.name + "_bucket"] = labels;
    } else {
      catalog[f.name] = labels;
    }
  }
}

// Everything the project exports.
inline Catalog exported_catalog() {
  Catalog c;
  const auto sample = full_sample();
  add_families(c, exporter::gpu_families(sample, {exporter::DcgmNaming::classic}), kAgentTargetLabels);
  add_families(c, exporter::gpu_families(sample, {exporter::DcgmNaming::dcgm_4_9}), kAgentTargetLabels);

  metrics::Registry registry;
  quota_controller::QuotaMetrics quota(registry);
  metrics::ControllerMetrics controller(registry);
  runtime::PrometheusWorkQueueMetrics workqueue(registry);
  add_families(c, registry.collect(), kTargetLabels);

  for (const auto& [name, labels] : kPoolFamilies) {
    auto all = labels;
    all.insert(kTargetLabels.begin(), kTargetLabels.end());
    c[name] = all;
  }
  c["up"] = kAgentTargetLabels;
  return c;
}

// The text of every .cpp under lib/pool_controller (for the check that the
// PoolMetrics list above names families that are registered there).
inline std::string pool_controller_sources() {
  std::string text;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(GPUPOOL_SOURCE_DIR) + "/lib/pool_controller")) {
    if (entry.path().extension() != ".cpp") continue;
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    text += ss.str();
  }
  return text;
}

}  // namespace gpupool::monitoring::testing
