// What a pod's DRA resource claims ask for, by DeviceClass, so the quota gate
// can charge them through the GPUPolicy's quota.deviceClasses mapping
// (DeviceClass -> the resource name one device of it is charged as). Pure
// but for the lookup the caller gives.
//
// Each spec.resourceClaims entry names an existing ResourceClaim
// (resourceClaimName: its spec) or a ResourceClaimTemplate
// (resourceClaimTemplateName: the spec of the claims made from it), in the
// pod's namespace. resource.k8s.io/v1: every spec.devices.requests[] is
// `exactly` {deviceClassName, allocationMode ExactCount (default) with
// count (default 1)} or `firstAvailable` [...] (the first, most preferred,
// alternative is charged). allocationMode All cannot be counted before
// allocation: the pod waits with that reason, as it does while a claim or
// template it names does not exist. A ResourceClaim shared by several pods
// is charged to each.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "gpupool/kube/json_projection.h"
#include "gpupool/kube/object.h"
#include "gpupool/quota/amounts.h"

namespace gpupool::quota {

struct PodClaims {
  Amounts by_class;     // DeviceClass -> devices (micro-units)
  std::string problem;  // why they cannot be counted; empty when they can
};

// `lookup("resourceclaims" | "resourceclaimtemplates", namespace, name)`: the object, or null.
using ClaimLookup =
    std::function<std::shared_ptr<const kube::Object>(const std::string& resource, const std::string& ns, const std::string& name)>;

PodClaims pod_claims(const kube::PodProjection& pod, const ClaimLookup& lookup);

}  // namespace gpupool::quota
