// Which resource names are GPUs, for the quota gate and for charging. Pure.
//
//   nvidia.com/gpu, nvidia.com/gpu.shared  whole GPUs, time-sliced replicas
//   nvidia.com/mig-*                       MIG instances (and their .shared replicas)
//   amd.com/*                              AMD GPUs: amd.com/gpu, or the names a
//                                          partitioned GPU advertises
//   gpupool.io/gpu                         the normalised unit (amounts.h)
//
// The same rule three ways, which must agree: is_gpu_resource on one name,
// requests_gpu on a pod projection, gpu_request_cel as a CEL expression the
// API server evaluates before calling the pod gate (admission matchConditions,
// ValidatingAdmissionPolicy). A pod "requests" a GPU when any container or
// init container names one in resources.requests or resources.limits,
// whatever the quantity (an explicit 0 included), or when it has DRA
// resource claims (spec.resourceClaims: which DeviceClass they ask for is in
// the claims, not the pod; the quota controller lets go the pods whose
// claims no GPUPolicy maps to a GPU resource); ephemeral containers cannot
// request resources.
#pragma once

#include <string>
#include <string_view>

#include "gpupool/kube/json_projection.h"

namespace gpupool::quota {

bool is_gpu_resource(std::string_view resource);

bool requests_gpu(const kube::PodProjection& pod);

// A CEL boolean over `object` (a Pod), true exactly when requests_gpu would
// be. Guards every optional field with has(), so it never errors on a pod the
// API server accepts.
std::string gpu_request_cel();

}  // namespace gpupool::quota
