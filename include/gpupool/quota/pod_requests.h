// What a pod asks of the resources a quota counts, as kube-scheduler counts
// requests (k8s.io/component-helpers/resource PodRequests):
//   max(sum of the containers and of the sidecars (init containers with
//       restartPolicy Always), the largest init container plus the sidecars
//       started before it) + spec.overhead.
// A container that sets only a limit for a resource is read as requesting
// it (Kubernetes defaults requests to limits, and extended resources must
// have both equal). Pure; a malformed quantity reads as 0 and is reported.
// The pod comes as its projection (kube/json_projection.h): what the pod
// store keeps, and what the pod gate decodes from an AdmissionReview.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/kube/json_projection.h"
#include "gpupool/quota/amounts.h"

namespace gpupool::quota {

struct PodRequests {
  Amounts requests;                 // resource -> micro-units, counted resources only, none at 0
  std::vector<std::string> problems;  // "spec.containers[0].resources.requests[nvidia.com/gpu]: \"x\" is not a quantity"
};

// `counted`: which resource names to read (GPU resources); others are skipped.
PodRequests pod_requests(const kube::PodProjection& pod, const std::function<bool(std::string_view)>& counted);

// Leaves in `pod` only the resources pod_requests(pod, counted) reads: the
// counted ones in requests, limits and overhead, and a limit only where the
// container's request does not name the same resource (the request wins).
// pod_requests gives the same requests afterwards; for a store that keeps
// many pods (the controller's: cpu and memory entries cost more than the rest
// of a GPU pod's projection). A malformed limit beside its request is no
// longer reported; the API server refuses those.
void drop_uncounted_resources(kube::PodProjection& pod, const std::function<bool(std::string_view)>& counted);

}  // namespace gpupool::quota
