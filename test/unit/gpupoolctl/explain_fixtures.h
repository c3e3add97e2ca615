// Objects as the controller and the agents write them, for the tests of
// `status` and `explain` (lib/explain).
#pragma once

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <deque>
#include <string>

#include "gpupool/common/rfc3339.h"

namespace gpupool::explain::testing {

// Owns parsed documents for the duration of a test.
class Docs {
 public:
  const rapidjson::Value* operator()(const std::string& json) {
    docs_.emplace_back();
    docs_.back().Parse(json.c_str());
    EXPECT_FALSE(docs_.back().HasParseError()) << json;
    return &docs_.back();
  }

 private:
  std::deque<rapidjson::Document> docs_;
};

// A fixed "now" and times before it.
inline std::chrono::system_clock::time_point now() {
  return to_system_clock(*parse_rfc3339("2026-05-01T12:00:00Z"));
}
inline constexpr const char* kNowMinus30s = "2026-05-01T11:59:30Z";
inline constexpr const char* kNowMinus5m = "2026-05-01T11:55:00Z";
inline constexpr const char* kNowMinus1h = "2026-05-01T11:00:00Z";

inline std::string cond(const std::string& type, const std::string& status, const std::string& reason,
                        const std::string& message, int generation = 1) {
  return R"({"type":")" + type + R"(","status":")" + status + R"(","reason":")" + reason + R"(","message":")" +
         message + R"(","observedGeneration":)" + std::to_string(generation) +
         R"(,"lastTransitionTime":"2026-05-01T11:00:00Z"})";
}

// A GPUPool with `conditions` (JSON array items) and counts.
inline std::string pool(const std::string& name, const std::string& conditions, const std::string& extra_status = "",
                        const std::string& spec = R"({"driver":{"version":"570.133.20"}})", int generation = 1) {
  return R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUPool","metadata":{"name":")" + name +
         R"(","generation":)" + std::to_string(generation) + R"(},"spec":)" + spec +
         R"(,"status":{"observedGeneration":1,"conditions":[)" + conditions + "]" +
         (extra_status.empty() ? "" : "," + extra_status) + "}}";
}

// A GPUNode of pool `pool` reporting 2 A100s, with the agent's conditions.
inline std::string gpunode(const std::string& name, const std::string& pool, const std::string& conditions,
                           bool disruption_allowed = false, const std::string& extra_status = "",
                           const std::string& extra_spec = "", int generation = 1, int observed = 1) {
  return R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUNode","metadata":{"name":")" + name +
         R"(","generation":)" + std::to_string(generation) + R"(},"spec":{"nodeName":")" + name + R"(","pool":")" + pool +
         R"(","driver":{"version":"570.133.20","installer":{"kind":"container","image":"x"}},"disruptionAllowed":)" +
         (disruption_allowed ? "true" : "false") + extra_spec + R"(},"status":{"observedGeneration":)" +
         std::to_string(observed) +
         R"(,"gpuCount":2,"driverVersion":"550.54.15","lastHeartbeatTime":"2026-05-01T11:59:30Z","gpus":[)"
         R"({"index":0,"model":"NVIDIA A100-SXM4-80GB","catalogID":"a100-sxm4-80gb","health":"Healthy"},)"
         R"({"index":1,"model":"NVIDIA A100-SXM4-80GB","catalogID":"a100-sxm4-80gb","health":"Healthy"}],)"
         R"("conditions":[)" +
         conditions + "]" + (extra_status.empty() ? "" : "," + extra_status) + "}}";
}

inline std::string node(const std::string& name, bool ready = true, bool unschedulable = false,
                        const std::string& annotations = "{}", const std::string& taints = "[]",
                        const std::string& labels = "{}") {
  return R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name + R"(","annotations":)" + annotations +
         R"(,"labels":)" + labels + R"(},"spec":{"unschedulable":)" + (unschedulable ? "true" : "false") +
         R"(,"taints":)" + taints + R"(},"status":{"conditions":[)" +
         cond("Ready", ready ? "True" : "False", ready ? "KubeletReady" : "KubeletNotReady",
              ready ? "kubelet is posting ready status" : "container runtime is down") +
         "]}}";
}

inline std::string lease(const std::string& node, const std::string& renew_time, int duration = 40) {
  return R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"gpupool-agent-)" + node +
         R"(","namespace":"gpupool-system"},"spec":{"holderIdentity":")" + node + R"(","leaseDurationSeconds":)" +
         std::to_string(duration) + R"(,"renewTime":")" + renew_time + R"("}})";
}

inline std::string event(const std::string& kind, const std::string& ns, const std::string& name, const std::string& type,
                         const std::string& reason, const std::string& note, const std::string& time,
                         int count = 0) {
  return R"({"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e","namespace":")" +
         (ns.empty() ? std::string("default") : ns) + R"("},"eventTime":")" + time +
         R"(","regarding":{"kind":")" + kind + R"(","namespace":")" + ns + R"(","name":")" + name + R"("},"type":")" +
         type + R"(","reason":")" + reason + R"(","note":")" + note + R"(")" +
         (count > 0 ? R"(,"series":{"count":)" + std::to_string(count) + R"(,"lastObservedTime":")" + time + R"("})"
                    : "") +
         "}";
}

inline std::string quota(const std::string& ns, const std::string& name, const std::string& status,
                         const std::string& extra_spec = "") {
  return R"({"apiVersion":"gpupool.io/v1alpha1","kind":"TenantQuota","metadata":{"name":")" + name +
         R"(","namespace":")" + ns + R"(","generation":1},"spec":{"poolRef":{"name":"a100"},)"
         R"("resources":{"nvidia.com/gpu":4})" +
         extra_spec + "}" + (status.empty() ? "" : R"(,"status":)" + status) + "}";
}

inline std::string gated_pod(const std::string& ns, const std::string& name, const std::string& created) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" + ns +
         R"(","creationTimestamp":")" + created +
         R"("},"spec":{"schedulingGates":[{"name":"gpupool.io/quota"}],"containers":[{"name":"c"}]}})";
}

}  // namespace gpupool::explain::testing
