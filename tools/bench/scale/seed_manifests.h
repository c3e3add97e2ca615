// The objects gpupool-scale-bench creates for a ClusterShape, as the JSON
// bodies of their create requests. Pure.
#pragma once

#include <string>

#include "cluster_shape.h"

namespace gpupool::bench {

// A kwok Node (kwok's management annotation, the pool label, the GPU model
// label, the devices of its pool as capacity and allocatable).
std::string node_manifest(const ClusterShape& shape, std::size_t node);
// A GPUPool selecting its nodes by kBenchPoolLabel, with its driver version
// and, for a MIG pool, every GPU split into its profile.
std::string pool_manifest(const ClusterShape& shape, std::size_t pool);
// The tenant's Namespace, and its TenantQuota "quota" on its pool.
std::string namespace_manifest(const ClusterShape& shape, std::size_t tenant);
std::string quota_manifest(const ClusterShape& shape, std::size_t tenant);
// A pod bound to its node (spec.nodeName), in its tenant's namespace; a GPU
// pod limits one device of its pool's resource.
std::string pod_manifest(const ClusterShape& shape, std::size_t pod);

}  // namespace gpupool::bench
