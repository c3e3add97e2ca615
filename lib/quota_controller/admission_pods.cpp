#include "gpupool/quota_controller/admission_pods.h"

#include <string>

#include "gpupool/quota/gpu_resources.h"
#include "gpupool/quota/pod_requests.h"

namespace gpupool::quota_controller {

bool admission_keeps(const kube::PodProjection& pod) { return quota::requests_gpu(pod); }

void trim_for_admission(kube::PodProjection& pod) {
  quota::drop_uncounted_resources(pod, quota::is_gpu_resource);
  // swap, not clear: a cleared string keeps its allocation.
  if (pod.rare().scheduling_gates.empty()) std::string().swap(pod.uid);
  std::string().swap(pod.node_name);
  for (auto& c : pod.containers) std::string().swap(c.name);
  if (pod.rare().init_containers.empty()) return;  // no copy of shared rare fields
  for (auto& c : pod.rare_mut().init_containers) std::string().swap(c.name);
}

}  // namespace gpupool::quota_controller
