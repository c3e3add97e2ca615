// How Prometheus scrapes a pool's agents: the Service and the ServiceMonitor a
// GPUPool with spec.monitoring.enabled owns, and the names of every object a
// pool's monitoring owns. Pure: JSON manifests without ownerReferences (the
// reconciler applies them as the pool's, runtime/object_helpers.h
// apply_owned, and deletes them when monitoring is turned off).
//
// Pool scoping, the contract the alert rules (prometheus_rules.h) and the
// dashboard (dashboard.h) rely on:
// - The agent's GPU series carry `node` but no pool, and the agents are one
//   DaemonSet, not one per pool. Every series scraped from an agent gets the
//   label `pool` at scrape time instead: the pool's ServiceMonitor asks for
//   the node's metadata (spec.attachMetadata.node, Prometheus 2.37 or later;
//   Prometheus needs get/list/watch on Nodes), keeps only the agents whose
//   node has the label gpupool.io/pool=<pool> (the membership label the pool
//   controller keeps, pool/membership.h), and writes pool=<pool>,
//   node=<the pod's node> and job=gpupool-agent on them. A node that changes
//   pools changes label with it; a node in no pool is scraped by none. So
//   each pool has its own Service (they all select every agent pod: a label
//   selector cannot pick the pods of one pool's nodes) and its own
//   ServiceMonitor (which selects that Service), and no agent is scraped
//   twice. A Prometheus Operator whose ServiceMonitor CRD has no
//   spec.attachMetadata prunes the field; the keep then matches no target
//   and the pool's agents go unscraped, silently (GPUPoolAgentDown needs a
//   target; the controller's GPUPoolAgentHeartbeatStale still catches a dead
//   agent).
// - honorLabels: the agent's own namespace, pod and container labels (the
//   workload holding a GPU) win over the target's, and the target's
//   namespace, pod, container, service and endpoint labels (the agent pod's,
//   which the Prometheus Operator adds) are dropped, so a free GPU's series
//   does not look as if the agent held it.
// - The controller's own series (gpupool_pool_*, gpupool_tenantquota_*, ...)
//   come from however the controller is scraped (not here); they carry
//   `pool` themselves (or join to it, prometheus_rules.h). That scrape must
//   keep the exposed `namespace` of the quota gauges too (honorLabels),
//   else Prometheus renames it exported_namespace.
// Not chosen: a controller gauge gpupool_node_pool_info{node,pool} joined in
// every query. It would make every GPU alert depend on the controller being
// up and scraped, and need one scrape of all agents instead of one per pool.
//
// Names: every object of a pool's monitoring is object_name(pool)
// ("gpupool-<pool>"), the dashboard's ConfigMap object_name(pool) +
// "-dashboard"; all in the controller's namespace, labelled
// app.kubernetes.io/name=gpupool, app.kubernetes.io/managed-by=gpupool-controller,
// gpupool.io/pool=<pool> and MonitoringOptions::extra_labels.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "gpupool/api/common_types.h"

namespace gpupool::monitoring {

// The job label of every series scraped from an agent.
inline constexpr const char* kAgentJob = "gpupool-agent";
// The series label carrying the pool (agents' series: added at scrape time).
inline constexpr const char* kPoolSeriesLabel = "pool";
// The Prometheus Operator's API group.
inline constexpr const char* kMonitoringApiVersion = "monitoring.coreos.com/v1";

struct MonitoringOptions {
  std::string namespace_name = "gpupool-system";  // where the objects live (the controller's namespace)
  // Added to every object's labels: what the Prometheus' serviceMonitorSelector
  // and ruleSelector, or Grafana's sidecar, look for (e.g. release=kube-prometheus-stack).
  std::map<std::string, std::string> extra_labels;
  // The agent DaemonSet's pod labels (the Service's selector).
  std::map<std::string, std::string> agent_pod_labels{{"app.kubernetes.io/name", "gpupool-agent"}};
  int agent_metrics_port = 8080;  // the agent's --metrics-bind-address port
};

// "gpupool-<pool>" when that is a DNS-1035 label (a Service name: at most 63
// lower-case alphanumerics and '-', starting with a letter); otherwise the
// pool's name with '.' and other characters as '-', cut, and "-" and 8 hex
// digits of a hash of the pool's name appended (so "a.b" and "a-b" differ).
std::string object_name(const std::string& pool);
std::string dashboard_configmap_name(const std::string& pool);  // object_name(pool) + "-dashboard"

// The labels every object of the pool's monitoring carries.
std::map<std::string, std::string> object_labels(const std::string& pool, const MonitoringOptions& options);

// A Prometheus duration ("30s", "1m30s", "500ms", "1h"); whole milliseconds.
std::string prometheus_duration(std::chrono::milliseconds d);

// v1 Service object_name(pool): headless, selecting every agent pod, port
// "metrics" -> agent_metrics_port, publishNotReadyAddresses (an agent that is
// not ready is still a target, so it shows as up == 0 rather than vanishing).
std::string agent_service(const std::string& pool, const MonitoringOptions& options);

// monitoring.coreos.com/v1 ServiceMonitor object_name(pool): selects the
// pool's Service, scrapes port "metrics" every monitoring.scrapeInterval
// with honorLabels and attachMetadata.node, and the relabelings described
// above.
std::string agent_service_monitor(const std::string& pool, const api::Monitoring& monitoring,
                                  const MonitoringOptions& options);

}  // namespace gpupool::monitoring
