// What the local demo's screen (gpupool-localcluster demo) adds to the
// `gpupoolctl status` tables: the pods held at the quota gate, and whether
// everything the controller and the agents wrote says the fleet has settled.
// Pure, like status_tables.h: objects as the API server sent them (JSON) in,
// text or a verdict out; nothing is decided again here.
#pragma once

#include <rapidjson/document.h>

#include <chrono>
#include <string>
#include <vector>

#include "gpupool/explain/status_tables.h"

namespace gpupool::explain {

// Pods held at the scheduling gate gpupool.io/quota, oldest first:
// NAMESPACE NAME REQUESTS WAITING REASON. REQUESTS: the GPU resources the
// pod's containers ask for ("nvidia.com/mig-3g.40gb=1"; init containers
// left out); WAITING: the pod's age; REASON: the note of the newest
// WaitingForQuota Event about the pod, without its "waiting at the gate
// gpupool.io/quota: " prefix (cut at kReasonWidth), "-" when there is none
// yet. Pods without the gate are left out; `events` may hold any Events
// (events.k8s.io/v1), only WaitingForQuota ones about a listed pod are used.
Table gated_pods_table(const std::vector<const rapidjson::Value*>& pods, const std::vector<const rapidjson::Value*>& events,
                       std::chrono::system_clock::time_point now);

// The number of pods held at the gate among `pods`.
std::size_t gated_pod_count(const std::vector<const rapidjson::Value*>& pods);

// Settled: at least one pool; every GPUPool Ready (condition True, written
// for its current generation) with at least one member node, every member
// ready and none updating or failed; every TenantQuota Granted (condition
// True for its current generation). `waiting_on` names what is not, at most
// `max` entries ("GPUPool a100-80gb-mig: 0/1 nodes ready (RollingOut)",
// "TenantQuota ml-research/research-a100: PartiallyGranted"), empty when settled.
struct Settled {
  bool settled = false;
  std::vector<std::string> waiting_on;
};
Settled settled(const std::vector<const rapidjson::Value*>& pools, const std::vector<const rapidjson::Value*>& quotas,
                std::size_t max = 4);

}  // namespace gpupool::explain
