#include "gpupool/admission/pod_gate.h"

#include "gpupool/kube/client.h"
#include "gpupool/kube/json_projection.h"
#include "gpupool/quota/charging.h"
#include "gpupool/quota/gpu_resources.h"

namespace gpupool::admission {

AdmissionResponse gate_pod(const AdmissionRequest& request) {
  AdmissionResponse out;
  out.uid = request.uid;
  if (request.kind != "Pod" || request.group != "" || request.operation != "CREATE" || !request.object.IsObject()) {
    return out;
  }
  kube::PodProjection pod;
  try {
    pod = kube::project_pod(kube::to_json(request.object));
  } catch (const std::exception& e) {
    // The API server decoded it; a pod we cannot read is left to its validation.
    out.warnings.push_back(std::string("gpupool.io pod gate could not read the pod: ") + e.what());
    return out;
  }
  if (!quota::requests_gpu(pod) || quota::gated(pod)) return out;
  const rapidjson::Value* spec = request.object.HasMember("spec") ? &request.object["spec"] : nullptr;
  const bool has_gates = spec && spec->IsObject() && spec->HasMember("schedulingGates") && (*spec)["schedulingGates"].IsArray();
  out.json_patch = has_gates ? std::string(R"([{"op":"add","path":"/spec/schedulingGates/-","value":{"name":")") +
                                   quota::kQuotaGate + R"("}}])"
                             : std::string(R"([{"op":"add","path":"/spec/schedulingGates","value":[{"name":")") +
                                   quota::kQuotaGate + R"("}]}])";
  return out;
}

}  // namespace gpupool::admission
