// Watches a rollout as it happens (gpupool-scale-bench, step 8): every
// change of the GPUNodes' spec.disruptionAllowed and the bench Nodes'
// spec.unschedulable (for rollout_figures.h's worst_disruption, replayed
// afterwards in resourceVersion order), and when each GPUPool first reports
// its rollout to its target version complete (rollout_figures.h's
// rollout_complete, timed at the event's arrival).
//
// Three watch streams (GPUNodes, Nodes with kBenchPoolLabel, GPUPools),
// each from resourceVersion "0" (the current state first, then every
// change); one that fails or expires starts over the same way, which
// replays the current state, so no moment is lost while the API server
// is up. Threads are stopped and joined by the destructor.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gpupool/kube/client.h"
#include "rollout_figures.h"

namespace gpupool::bench {

class RolloutRecorder {
 public:
  using Clock = std::chrono::steady_clock;

  // `targets`: pool -> the driver version its rollout goes to.
  RolloutRecorder(kube::Client& client, std::map<std::string, std::string> targets);
  ~RolloutRecorder();
  RolloutRecorder(const RolloutRecorder&) = delete;
  RolloutRecorder& operator=(const RolloutRecorder&) = delete;

  // True once each stream has delivered at least this many objects (its
  // initial state): changes from then on are all seen.
  bool wait_primed(std::size_t gpunodes, std::size_t nodes, std::size_t pools, Clock::time_point deadline);
  // "GPUNodes 4,812, Nodes 5,000, GPUPools 20 seen; 3 watches started": for
  // an error when wait_primed gives up.
  std::string progress() const;
  // True once every target pool has reported complete.
  bool wait_complete(Clock::time_point deadline);

  // Their seen_s: seconds since the recorder was made.
  std::vector<DisruptionEvent> events() const;
  // When each pool was first seen complete (pools not complete are absent).
  std::map<std::string, Clock::time_point> completed() const;
  // Pools not complete yet and what their status says ("bench-01: 3 of 25 updated ...").
  std::string incomplete() const;
  // How often a bench Node seen Ready was then seen not Ready (a lapsed
  // kwok lease: the rollout counts such a node unavailable while it lasts).
  std::size_t not_ready_flips() const;

 private:
  void watch(const kube::ResourceRef& ref, const std::string& selector, int stream, std::stop_token stop);
  void on_object(int stream, bool deleted, const rapidjson::Document& obj);

  kube::Client& client_;
  const std::map<std::string, std::string> targets_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<DisruptionEvent> events_;
  std::size_t seen_[3] = {0, 0, 0};
  std::size_t watches_started_[3] = {0, 0, 0};
  std::string last_failure_[3];
  std::map<std::string, Clock::time_point> completed_;
  std::map<std::string, std::string> last_message_;  // pool -> status.rollout.message
  std::map<std::string, bool> node_ready_;            // node -> Ready as last seen
  std::size_t not_ready_flips_ = 0;
  const Clock::time_point start_ = Clock::now();
  std::vector<std::jthread> threads_;
};

}  // namespace gpupool::bench
