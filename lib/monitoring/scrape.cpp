#include "gpupool/monitoring/scrape.h"

#include <algorithm>
#include <utility>

#include "gpupool/pool/membership.h"
#include "json_text.h"

namespace gpupool::monitoring {
namespace {

using detail::quoted;
using detail::string_map;

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool dns1035_label(const std::string& s) {
  if (s.empty() || s.size() > 63 || !(s.front() >= 'a' && s.front() <= 'z') || !lower_alnum(s.back())) return false;
  for (const char c : s) {
    if (!lower_alnum(c) && c != '-') return false;
  }
  return true;
}

// The Service's own label (besides object_labels), which the ServiceMonitor selects on.
constexpr const char* kComponentLabel = "app.kubernetes.io/component";
constexpr const char* kComponent = "agent-metrics";

// Prometheus' name for a node label among the target's metadata (every
// character outside [a-zA-Z0-9_] becomes '_').
std::string node_label_meta(const std::string& label) {
  std::string out = "__meta_kubernetes_node_label_";
  for (const char c : label) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    out += ok ? c : '_';
  }
  return out;
}

std::string metadata(const std::string& name, const MonitoringOptions& options,
                     const std::map<std::string, std::string>& labels) {
  return R"({"name":)" + quoted(name) + R"(,"namespace":)" + quoted(options.namespace_name) + R"(,"labels":)" +
         string_map(labels) + "}";
}

}  // namespace

std::string object_name(const std::string& pool) {
  std::string name = "gpupool-" + pool;
  if (dns1035_label(name)) return name;
  std::string cleaned = "gpupool-";
  for (const char c : pool) {
    if (lower_alnum(c)) {
      cleaned += c;
    } else if (c >= 'A' && c <= 'Z') {
      cleaned += static_cast<char>(c - 'A' + 'a');
    } else {
      cleaned += '-';
    }
  }
  cleaned.resize(std::min<std::size_t>(cleaned.size(), 63 - 9));
  while (cleaned.back() == '-') cleaned.pop_back();  // "gpupool" stays
  return cleaned + "-" + detail::hex8(detail::fnv1a(pool));
}

std::string dashboard_configmap_name(const std::string& pool) { return object_name(pool) + "-dashboard"; }

std::map<std::string, std::string> object_labels(const std::string& pool, const MonitoringOptions& options) {
  auto labels = options.extra_labels;
  labels["app.kubernetes.io/name"] = "gpupool";
  labels["app.kubernetes.io/managed-by"] = "gpupool-controller";
  labels[pool::kPoolLabel] = pool;
  return labels;
}

std::string prometheus_duration(std::chrono::milliseconds d) {
  auto ms = d.count();
  if (ms <= 0) return "0s";
  std::string out;
  for (const auto& [unit, size] : {std::pair{"h", 3'600'000LL}, {"m", 60'000LL}, {"s", 1'000LL}, {"ms", 1LL}}) {
    if (ms >= size) {
      out += std::to_string(ms / size) + unit;
      ms %= size;
    }
  }
  return out;
}

std::string agent_service(const std::string& pool, const MonitoringOptions& options) {
  auto labels = object_labels(pool, options);
  labels[kComponentLabel] = kComponent;
  const std::string port = std::to_string(options.agent_metrics_port);
  return R"({"apiVersion":"v1","kind":"Service","metadata":)" + metadata(object_name(pool), options, labels) +
         R"(,"spec":{"clusterIP":"None","publishNotReadyAddresses":true,"selector":)" +
         string_map(options.agent_pod_labels) + R"(,"ports":[{"name":"metrics","protocol":"TCP","port":)" + port +
         R"(,"targetPort":)" + port + "}]}}";
}

std::string agent_service_monitor(const std::string& pool, const api::Monitoring& monitoring,
                                  const MonitoringOptions& options) {
  const auto interval = std::chrono::duration_cast<std::chrono::milliseconds>(monitoring.scrape_interval.value());
  const std::string relabelings =
      // Only the agents on the pool's member nodes.
      R"([{"action":"keep","sourceLabels":[)" + quoted(node_label_meta(pool::kPoolLabel)) + R"(],"regex":)" +
      quoted(detail::regex_literal(pool)) + "}," +
      // pool, node and job on every series.
      R"({"action":"replace","targetLabel":)" + quoted(kPoolSeriesLabel) + R"(,"replacement":)" + quoted(pool) + "}," +
      R"({"action":"replace","sourceLabels":["__meta_kubernetes_pod_node_name"],"targetLabel":"node"},)" +
      R"({"action":"replace","targetLabel":"job","replacement":)" + quoted(kAgentJob) + "}," +
      // The agent pod's own identity is not the workload's.
      R"({"action":"labeldrop","regex":"namespace|pod|container|service|endpoint"}])";
  std::map<std::string, std::string> selector{{kComponentLabel, kComponent}, {pool::kPoolLabel, pool}};
  return R"({"apiVersion":)" + quoted(kMonitoringApiVersion) + R"(,"kind":"ServiceMonitor","metadata":)" +
         metadata(object_name(pool), options, object_labels(pool, options)) +
         R"(,"spec":{"selector":{"matchLabels":)" + string_map(selector) +
         R"(},"namespaceSelector":{"matchNames":[)" + quoted(options.namespace_name) +
         R"(]},"attachMetadata":{"node":true},"endpoints":[{"port":"metrics","path":"/metrics",)" +
         (interval.count() > 0 ? R"("interval":)" + quoted(prometheus_duration(interval)) + "," : std::string()) +
         R"("honorLabels":true,"relabelings":)" + relabelings + "}]}}";
}

}  // namespace gpupool::monitoring
