// Private to lib/node: the agent's side of GPU health (docs/api.md, "GPU
// health"). The rules themselves are pool::judge_gpu_health
// (include/gpupool/pool/gpu_health.h); this keeps what a judgment needs
// between judgments and turns the telemetry snapshot into observations:
// - a GpuHealthMemory per GPU, by UUID: a GPU whose index changes or that
//   vanishes from the inventory keeps its mark (and no other GPU inherits it);
// - the XIDs of the snapshot not judged yet (the snapshot counts them since
//   the poller started, per GPU index; each is judged once);
// - the temperature and uncorrectable ECC count of the latest metrics, while
//   they are fresh (older ones are "not measured now", so a stalled backend
//   does not keep a cause alive);
// - correctable ECC errors in the last 24 h, from the driver's volatile
//   count: its increase over the samples kept (one every few minutes, the
//   last 24 h); a count that falls (driver reloaded) starts over.
// Thread-safe: the telemetry thread and the reconcile pass both judge.
#pragma once

#include <rapidjson/document.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gpupool/api/gpunode.h"
#include "gpupool/api/meta.h"
#include "gpupool/backend/backend.h"
#include "gpupool/node/telemetry_poller.h"
#include "gpupool/pool/gpu_health.h"

namespace gpupool::node {

struct GpuIdentity {
  std::int32_t index = 0;
  std::string uuid;
};

// What the agent writes for one GPU, and when to look again.
struct GpuVerdict {
  api::GPUHealth health = api::GPUHealth::healthy;
  std::vector<std::string> reasons;
  std::optional<pool::HealthTime> next_check;  // a cause stops counting then
  bool operator==(const GpuVerdict&) const = default;
};

struct GpuHealthTrackerOptions {
  // Metrics older than this are not a measurement now (3 telemetry intervals).
  std::chrono::milliseconds metrics_fresh{std::chrono::seconds(30)};
  // Spacing of the correctable ECC samples kept for the 24 h window.
  std::chrono::minutes ecc_sample_spacing{5};
};

class GpuHealthTracker {
 public:
  explicit GpuHealthTracker(GpuHealthTrackerOptions options = {}) : options_(options) {}

  // Judges the GPUs `gpus` by `rules` (nullopt: no rules, every GPU
  // Healthy and nothing remembered) with what `snapshot` (may be null)
  // adds. Returns a verdict per UUID in `gpus`. With rules and no snapshot
  // collected yet (nullptr or sequence 0), a GPU with nothing remembered is
  // Unknown (not measured yet). XIDs for a GPU index not in `gpus` wait for
  // a judgment that knows that GPU.
  std::map<std::string, GpuVerdict> judge(const std::optional<api::HealthRules>& rules,
                                          const std::vector<GpuIdentity>& gpus, const TelemetrySnapshot* snapshot,
                                          pool::HealthTime now);

 private:
  struct EccHistory {
    std::vector<std::pair<pool::HealthTime, std::int64_t>> samples;  // oldest first
    std::optional<pool::HealthTime> read_at;                          // the last reading taken in
    std::int64_t latest = 0;
  };
  std::optional<std::int64_t> correctable_last_day(EccHistory& h, std::int64_t count, pool::HealthTime at,
                                                   pool::HealthTime now);

  GpuHealthTrackerOptions options_;
  std::mutex mu_;
  std::map<std::string, pool::GpuHealthMemory> memory_;          // by UUID
  std::map<std::pair<int, int>, std::int64_t> xids_judged_;       // (GPU index, code) -> count already judged
  std::map<std::string, EccHistory> ecc_;                         // by UUID
};

// The GPUs of a status, as the tracker names them.
std::vector<GpuIdentity> gpu_identities(const std::vector<api::GPUStatus>& gpus);

// Writes each verdict into the GPU of `gpus` with its UUID (health and
// healthReasons); a GPU without a verdict is Unknown.
void apply_verdicts(std::vector<api::GPUStatus>& gpus, const std::map<std::string, GpuVerdict>& verdicts);

// The GPUNode condition Healthy, from the GPUs' health: False (GPUUnhealthy)
// while a GPU is Unhealthy, naming them (at most 3, then how many more);
// Unknown (NotMeasured) while a GPU is not judged yet; else True: Degraded
// GPUs named (GPUDegraded), AllHealthy, or NoHealthRules without spec.health.
// lastTransitionTime is `now` (set_condition keeps the old one while the
// status holds).
api::Condition healthy_condition(const std::vector<api::GPUStatus>& gpus, bool has_rules, std::int64_t generation,
                                 const api::Time& now);

// The node as the controller left it: taken out for GPU health
// (pool::is_taken_out_for_health over its taints, spec.unschedulable and the
// remediation annotation).
bool node_taken_out_for_health(const rapidjson::Value& node);

// `inventory` without the GPUs that `gpus` says are Unhealthy (matched by
// index and UUID; their MIG instances go with them): what is advertised
// while the node is taken out. `withdrawn` gets their indexes.
backend::Inventory without_unhealthy(const backend::Inventory& inventory, const std::vector<api::GPUStatus>& gpus,
                                     std::vector<int>* withdrawn = nullptr);

}  // namespace gpupool::node
