// The Grafana dashboard of a GPUPool with spec.monitoring.dashboard.enabled,
// in a ConfigMap Grafana's dashboard sidecar loads (label
// grafana_dashboard: "1"). Pure.
//
// The dashboard is one JSON file kept in the repository
// (lib/monitoring/data/gpupool-dashboard.json, embedded at build time) with
// a Prometheus datasource variable, and variables pool
// (label_values(gpupool_pool_nodes, pool)), node (the pool's GPUs' nodes) and
// namespace (the TenantQuotas' namespaces). Panels: the pool (member nodes,
// GPUs, unhealthy GPUs, agents up, paused, failed nodes, capacity against
// granted by resource, nodes by state, rollout progress), the GPUs
// (utilisation by GPU and MIG instance, by namespace, by tenant and by pod,
// memory, temperature, power, clock events, XIDs, ECC errors, health, the
// controller's health remediations), the TenantQuotas (granted, used,
// borrowed and waiting, used / granted) and the agents (up). Every query uses
// only metric names and labels the project exports, plus the scrape's
// job, instance and the agents' pool (scrape.h); the quota gauges carry no
// pool, so the TenantQuota panels filter by namespace only.
#pragma once

#include <string>
#include <string_view>

#include "gpupool/monitoring/scrape.h"

namespace gpupool::monitoring {

// The dashboard as kept in the repository (uid "gpupool", title "GPU pool").
std::string_view dashboard_template();

// The dashboard for `pool`: uid "gpupool-<pool>" (Grafana's 40 characters at
// most: cut, with a hash, when longer), title "GPU pool <pool>", the pool
// variable's current value `pool`. Throws std::runtime_error when the
// template is not valid JSON (a build that would ship a broken file).
std::string dashboard_json(const std::string& pool);

// The dashboard's Grafana uid for `pool`.
std::string dashboard_uid(const std::string& pool);

// v1 ConfigMap dashboard_configmap_name(pool) holding dashboard_json(pool)
// under "gpupool-<pool>.json", labelled grafana_dashboard: "1" and
// object_labels(pool, options).
std::string dashboard_configmap(const std::string& pool, const MonitoringOptions& options);

}  // namespace gpupool::monitoring
