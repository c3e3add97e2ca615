#include "gpupool/node/gpu_metrics_collector.h"

#include <spdlog/spdlog.h>

namespace gpupool::node {

std::map<int, api::GPUHealth> gpu_health_of(const rapidjson::Value& gpunode) {
  std::map<int, api::GPUHealth> out;
  if (!gpunode.IsObject() || !gpunode.HasMember("status") || !gpunode["status"].IsObject()) return out;
  const auto& status = gpunode["status"];
  if (!status.HasMember("gpus") || !status["gpus"].IsArray()) return out;
  for (const auto& g : status["gpus"].GetArray()) {
    if (!g.IsObject() || !g.HasMember("index") || !g["index"].IsInt() || !g.HasMember("health") || !g["health"].IsString()) continue;
    if (auto h = api::parse_enum<api::GPUHealth>(g["health"].GetString())) out[g["index"].GetInt()] = *h;
  }
  return out;
}

std::map<int, exporter::XidTally> xid_tallies(const std::map<int, GpuXids>& xids) {
  std::map<int, exporter::XidTally> out;
  for (const auto& [gpu, x] : xids) {
    auto& t = out[gpu];
    for (const auto& [code, c] : x.codes) t.counts[code] = c.count;
    t.last = x.last_code;
  }
  return out;
}

std::set<std::string> holder_namespaces(const podresources::Attribution& users) {
  std::set<std::string> out;
  for (const auto& [gpu, refs] : users.gpus) {
    for (const auto& r : refs) out.insert(r.namespace_);
  }
  for (const auto& [instance, refs] : users.mig_instances) {
    for (const auto& r : refs) out.insert(r.namespace_);
  }
  return out;
}

GpuMetricsCollector::GpuMetricsCollector(std::string hostname, exporter::ExporterOptions options, GpuMetricsSources sources)
    : hostname_(std::move(hostname)), options_(options), sources_(std::move(sources)) {}

void GpuMetricsCollector::on_snapshot(const TelemetrySnapshot& snapshot) {
  exporter::GpuSample sample;
  sample.hostname = hostname_;
  if (sources_.inventory) {
    if (auto inv = sources_.inventory()) sample.inventory = std::move(*inv);
  }
  sample.metrics = snapshot.metrics;
  sample.xids = xid_tallies(snapshot.xids);
  if (sources_.health) sample.health = sources_.health();
  bool attributed = false;
  if (sources_.lister) {
    try {
      const auto held = sources_.lister->list();
      sample.users = podresources::attribute(sample.inventory.gpus, held);
      attributed = true;
      if (lister_ok_ == false) spdlog::info("gpu metrics: pod attribution from the kubelet's pod-resources API works again");
    } catch (const podresources::PodResourcesUnavailable& e) {
      if (lister_ok_ != false) {
        spdlog::warn("gpu metrics: no pod attribution (metrics go on without pod labels): {}", e.what());
      }
    }
    lister_ok_ = attributed;
  }
  if (attributed && sources_.tenants) sample.tenants = sources_.tenants(holder_namespaces(sample.users));
  auto built = std::make_shared<const std::vector<metrics::FamilySnapshot>>(exporter::gpu_families(sample, options_));
  std::lock_guard lock(mu_);
  families_ = std::move(built);
  attributed_ = attributed;
}

std::vector<metrics::FamilySnapshot> GpuMetricsCollector::families() const {
  std::shared_ptr<const std::vector<metrics::FamilySnapshot>> f;
  {
    std::lock_guard lock(mu_);
    f = families_;
  }
  return f ? *f : std::vector<metrics::FamilySnapshot>{};
}

}  // namespace gpupool::node
