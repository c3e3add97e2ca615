#include "cluster_shape.h"

#include <algorithm>
#include <cstdio>
#include <random>
#include <stdexcept>

namespace gpupool::bench {
namespace {

std::string numbered(const char* prefix, int width, std::size_t n) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%0*zu", prefix, width, n);
  return buf;
}

// The four kinds of pool, in turn.
PoolShape pool_kind(int index) {
  PoolShape p;
  switch (index % 4) {
    case 0:
      p.model = "a100-sxm4-80gb", p.vendor = "nvidia", p.resource = "nvidia.com/mig-1g.10gb", p.devices_per_gpu = 7;
      p.mig_profile = "1g.10gb", p.driver = "570.133.20";
      break;
    case 1:
      p.model = "h100-sxm5-80gb", p.vendor = "nvidia", p.resource = "nvidia.com/gpu", p.driver = "570.133.20";
      break;
    case 2:
      p.model = "t4-16gb", p.vendor = "nvidia", p.resource = "nvidia.com/gpu", p.driver = "550.54.15";
      break;
    default:
      p.model = "mi300x-192gb", p.vendor = "amd", p.resource = "amd.com/gpu";
      break;
  }
  p.name = numbered("bench-", 2, static_cast<std::size_t>(index));
  return p;
}

void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(what);
}

}  // namespace

ClusterShape without_pods(const ClusterShape& shape, const std::vector<std::size_t>& deleted) {
  ClusterShape out = shape;
  for (std::size_t i : deleted) {
    const PodShape& p = shape.pods.at(i);
    if (!p.gpu) continue;
    --out.tenant_used[static_cast<std::size_t>(p.tenant)];
    --out.gpu_pods;
  }
  return out;
}

std::string pod_name(std::size_t index) { return numbered("pod-", 6, index); }

ClusterShape make_shape(const ShapeOptions& o) {
  require(o.nodes >= 1, "--nodes must be at least 1");
  require(o.pools >= 1 && o.pools <= o.nodes, "--pools must be between 1 and --nodes");
  require(o.tenants >= 1, "--tenants must be at least 1");
  require(o.pods >= 0, "--pods must not be negative");
  require(o.gpus_per_node >= 1 && o.gpus_per_node <= 16, "--gpus-per-node must be between 1 and 16");

  ClusterShape s;
  s.options = o;
  for (int p = 0; p < o.pools; ++p) s.pools.push_back(pool_kind(p));
  // Nodes round-robin over pools, so every pool has nodes/pools of them.
  std::vector<std::vector<int>> pool_nodes(static_cast<std::size_t>(o.pools));
  for (int n = 0; n < o.nodes; ++n) {
    const int pool = n % o.pools;
    s.nodes.push_back({numbered("bench-node-", 5, static_cast<std::size_t>(n)), pool});
    pool_nodes[static_cast<std::size_t>(pool)].push_back(n);
    ++s.pools[static_cast<std::size_t>(pool)].node_count;
  }
  for (const auto& p : s.pools) s.pool_members[p.name] = p.node_count;

  // Tenants round-robin over pools.
  std::mt19937_64 rng(o.seed);
  for (int t = 0; t < o.tenants; ++t) {
    s.tenants.push_back({numbered("tenant-", 4, static_cast<std::size_t>(t)), t % o.pools, 0});
  }
  s.tenant_used.assign(static_cast<std::size_t>(o.tenants), 0);

  // Free devices per node; a cursor per pool over its nodes.
  std::vector<int> free(static_cast<std::size_t>(o.nodes));
  for (int n = 0; n < o.nodes; ++n) {
    const auto& pool = s.pools[static_cast<std::size_t>(s.nodes[static_cast<std::size_t>(n)].pool)];
    free[static_cast<std::size_t>(n)] = o.gpus_per_node * pool.devices_per_gpu;
  }
  std::vector<std::size_t> cursor(static_cast<std::size_t>(o.pools), 0);
  std::vector<long> pool_free(static_cast<std::size_t>(o.pools), 0);
  for (int n = 0; n < o.nodes; ++n) {
    pool_free[static_cast<std::size_t>(s.nodes[static_cast<std::size_t>(n)].pool)] += free[static_cast<std::size_t>(n)];
  }
  s.pods.reserve(static_cast<std::size_t>(o.pods));
  for (int i = 0; i < o.pods; ++i) {
    int tenant = static_cast<int>(rng() % static_cast<std::uint64_t>(o.tenants));
    PodShape pod{tenant, static_cast<int>(rng() % static_cast<std::uint64_t>(o.nodes)), false};
    if (i % 2 == 0) {
      // A GPU pod: of its tenant, or, when that tenant's pool is full, of the
      // next tenants (other pools: tenants go round-robin over them).
      for (int step = 0; step < std::min(o.tenants, o.pools); ++step) {
        const int t = (tenant + step) % o.tenants;
        const auto pool = static_cast<std::size_t>(s.tenants[static_cast<std::size_t>(t)].pool);
        if (pool_free[pool] == 0) continue;
        const auto& members = pool_nodes[pool];
        while (free[static_cast<std::size_t>(members[cursor[pool]])] == 0) cursor[pool] = (cursor[pool] + 1) % members.size();
        const int n = members[cursor[pool]];
        cursor[pool] = (cursor[pool] + 1) % members.size();
        --free[static_cast<std::size_t>(n)];
        --pool_free[pool];
        pod = {t, n, true};
        ++s.tenant_used[static_cast<std::size_t>(t)];
        ++s.gpu_pods;
        break;
      }
    }
    s.pods.push_back(pod);
  }
  // Each guarantee covers what the tenant's pods hold, with 0..3 to spare,
  // so no pod is ever above its quota's grant.
  for (std::size_t t = 0; t < s.tenants.size(); ++t) {
    s.tenants[t].guarantee = std::max(1, s.tenant_used[t] + static_cast<int>(rng() % 4));
  }
  return s;
}

}  // namespace gpupool::bench
