// The cluster gpupool-scale-bench seeds, as data: nodes, pools, tenants with
// their TenantQuotas, and pods, deterministic for the options (no clock, no
// randomness beyond the seed). Pure; what the controller's status must say
// about it afterwards comes with it (expected pool members, tenants' usage).
//
// Default size: Kubernetes' documented largest cluster (5,000 nodes,
// 150,000 pods), 8 GPUs per node, 20 pools cycling through four kinds of
// node (A100 80GB split into seven 1g.10gb MIG instances per GPU, H100 80GB,
// T4, MI300X), 2,000 tenants, each a namespace of its own with one
// TenantQuota on one pool, guaranteeing what its pods hold and up to three
// devices more (so no running pod is ever over its grant). Every other pod
// asks for one device of its tenant's pool (a MIG slice or a whole GPU) and
// is bound to a node of that pool that still has one free (a tenant whose
// pool is full gives the pod to the next tenant, of another pool); the
// others (and GPU pods no pool has room for) ask for none and are spread
// over all nodes. At the default size the pools hold 100,000 devices, so
// half the pods get one. Pods are bound
// (spec.nodeName), so kwok runs them without the scheduler and without a
// status write of ours.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gpupool::bench {

struct ShapeOptions {
  int nodes = 5000;
  int gpus_per_node = 8;
  int pools = 20;
  int pods = 150000;
  int tenants = 2000;
  std::uint64_t seed = 1;
};

struct PoolShape {
  std::string name;          // "bench-00"
  std::string model;         // catalog id ("a100-sxm4-80gb")
  std::string vendor;        // "nvidia" or "amd"
  std::string resource;      // what a pod asks for ("nvidia.com/mig-1g.10gb")
  int devices_per_gpu = 1;   // of `resource` (7 for 1g.10gb on an A100 80GB)
  std::string mig_profile;   // "1g.10gb" for a MIG pool, else empty
  std::string driver;        // spec.driver.version (NVIDIA pools), else empty
  int node_count = 0;
};

struct NodeShape {
  std::string name;  // "bench-node-00000"
  int pool = 0;      // index into pools
};

struct TenantShape {
  std::string ns;      // "tenant-0000": the namespace, the tenant, the quota's namespace
  int pool = 0;
  int guarantee = 0;   // spec.resources[pool.resource]
};

struct PodShape {
  int tenant = 0;
  int node = 0;      // index into nodes
  bool gpu = false;  // asks for one pools[tenants[tenant].pool].resource
};

struct ClusterShape {
  ShapeOptions options;
  std::vector<PoolShape> pools;
  std::vector<NodeShape> nodes;
  std::vector<TenantShape> tenants;
  std::vector<PodShape> pods;

  // What the controller's status must say once synced.
  std::map<std::string, int> pool_members;  // pool name -> status.nodes.total
  std::vector<int> tenant_used;             // per tenant: devices its running pods hold (status.used)
  std::size_t gpu_pods = 0;
};

// Throws std::invalid_argument naming the option when a size is out of range
// (nodes, pools, tenants >= 1; pods >= 0; gpus_per_node 1..16; pools <= nodes).
ClusterShape make_shape(const ShapeOptions& options);

// What the statuses must say once the GPU pods `deleted` (indexes into
// pods, e.g. the usage probes') are gone: tenant_used and gpu_pods less
// theirs. `pods` still lists them (a pod asking for no GPU is left as is).
ClusterShape without_pods(const ClusterShape& shape, const std::vector<std::size_t>& deleted);

// The label every bench node carries with its pool's name (the pools' nodeSelector).
inline constexpr const char* kBenchPoolLabel = "gpupool.io/bench-pool";

// Names.
std::string pod_name(std::size_t index);  // "pod-000123"

}  // namespace gpupool::bench
