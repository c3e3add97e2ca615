// The pod gate (issue 13): what the mutating webhook at /mutate-pods answers
// for a pod being created. A pod requesting GPU resources
// (quota/gpu_resources.h) gets the scheduling gate gpupool.io/quota, which
// the leading controller removes when the pod fits its TenantQuota; a pod
// that carries it already, or requests no GPU, is left as it is. Pure.
//
// The webhook configuration (gate_configuration.h) sends only GPU pods in
// covered namespaces (matchConditions, namespaceSelector); the check here
// is repeated so that a configuration out of date never gates other pods.
#pragma once

#include "gpupool/admission/admission_review.h"

namespace gpupool::admission {

AdmissionResponse gate_pod(const AdmissionRequest& request);

}  // namespace gpupool::admission
