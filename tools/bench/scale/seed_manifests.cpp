#include "seed_manifests.h"

namespace gpupool::bench {
namespace {

std::string q(const std::string& s) { return "\"" + s + "\""; }  // names here need no escaping

}  // namespace

std::string node_manifest(const ClusterShape& shape, std::size_t node) {
  const NodeShape& n = shape.nodes.at(node);
  const PoolShape& p = shape.pools.at(static_cast<std::size_t>(n.pool));
  const std::string devices = std::to_string(shape.options.gpus_per_node * p.devices_per_gpu);
  const std::string resources = R"({"cpu":"64","memory":"512Gi","pods":"110",)" + q(p.resource) + ":" + q(devices) + "}";
  return R"({"apiVersion":"v1","kind":"Node","metadata":{"name":)" + q(n.name) +
         R"(,"labels":{"type":"kwok","kubernetes.io/os":"linux","kubernetes.io/arch":"amd64","kubernetes.io/hostname":)" +
         q(n.name) + "," + q(kBenchPoolLabel) + ":" + q(p.name) + R"(,"gpupool.io/gpu-model":)" + q(p.model) +
         R"(},"annotations":{"kwok.x-k8s.io/node":"fake","node.alpha.kubernetes.io/ttl":"0"}},"spec":{},)"
         R"("status":{"capacity":)" + resources + R"(,"allocatable":)" + resources + "}}";
}

std::string pool_manifest(const ClusterShape& shape, std::size_t pool) {
  const PoolShape& p = shape.pools.at(pool);
  std::string spec = R"({"nodeSelector":{"matchLabels":{)" + q(kBenchPoolLabel) + ":" + q(p.name) + R"(}},"vendor":)" +
                     q(p.vendor);
  if (!p.driver.empty()) {
    spec += R"(,"driver":{"version":)" + q(p.driver) +
            R"(,"installer":{"kind":"container","image":"nvcr.io/nvidia/driver:)" + p.driver +
            R"(-ubuntu22.04"},"upgradeStrategy":{"maxUnavailable":"10%"}})";
  }
  if (!p.mig_profile.empty()) {
    spec += R"(,"partitioning":{"nvidia":{"strategy":"mixed","devices":[{"profiles":{)" + q(p.mig_profile) + ":" +
            std::to_string(p.devices_per_gpu) + "}}]}}";
  }
  return R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUPool","metadata":{"name":)" + q(p.name) + R"(},"spec":)" +
         spec + "}}";
}

std::string namespace_manifest(const ClusterShape& shape, std::size_t tenant) {
  return R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":)" + q(shape.tenants.at(tenant).ns) + "}}";
}

std::string quota_manifest(const ClusterShape& shape, std::size_t tenant) {
  const TenantShape& t = shape.tenants.at(tenant);
  const PoolShape& p = shape.pools.at(static_cast<std::size_t>(t.pool));
  return R"({"apiVersion":"gpupool.io/v1alpha1","kind":"TenantQuota","metadata":{"name":"quota","namespace":)" + q(t.ns) +
         R"(},"spec":{"poolRef":{"name":)" + q(p.name) + R"(},"resources":{)" + q(p.resource) + ":" +
         std::to_string(t.guarantee) + "}}}";
}

std::string pod_manifest(const ClusterShape& shape, std::size_t pod) {
  const PodShape& s = shape.pods.at(pod);
  const TenantShape& t = shape.tenants.at(static_cast<std::size_t>(s.tenant));
  const NodeShape& n = shape.nodes.at(static_cast<std::size_t>(s.node));
  std::string resources = R"({"requests":{"cpu":"100m","memory":"128Mi"}})";
  if (s.gpu) {
    const PoolShape& p = shape.pools.at(static_cast<std::size_t>(t.pool));
    resources = R"({"requests":{"cpu":"100m","memory":"128Mi"},"limits":{)" + q(p.resource) + R"(:"1"}})";
  }
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":)" + q(pod_name(pod)) + R"(,"namespace":)" + q(t.ns) +
         R"(,"labels":{"app":"bench"}},"spec":{"nodeName":)" + q(n.name) +
         R"(,"automountServiceAccountToken":false,"tolerations":[{"operator":"Exists"}],"containers":[{"name":"main","image":"registry.example.com/train:1","resources":)" +
         resources + "}]}}";
}

}  // namespace gpupool::bench
