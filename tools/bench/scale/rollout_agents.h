// A fleet of simulated node agents in one process, one per node of the
// bench's cluster (ClusterShape), each following sim_agent.h's contract:
// the scale benchmark's nodes have no agent, and thousands of real ones
// (a process, three informers and a Lease each) would not fit one machine.
//
// Shared, not per agent: one informer on all GPUNodes and one on the
// bench's Nodes (label kBenchPoolLabel), one work queue whose key is the
// node name, `workers` threads running passes (runtime::Controller: a node
// is never in two passes at once), and `lease_threads` threads renewing
// every agent's Lease gpupool-agent-<node> in `lease_namespace` every
// `lease_interval` (leaseDurationSeconds `lease_duration_s`: the agent's
// defaults, 10 s and 40 s), which the controller reads as the agent being
// alive. An install does not hold a thread: the pass ends and the key comes
// back when the install time is over.
//
// Writes, as the real agent: GPUNode status (a merge patch of the whole
// status on the status subresource, only when it differs from the last one
// written, lastHeartbeatTime aside), the Node's cordon and uncordon (merge
// patches carrying the resourceVersion read; a conflict re-reads), the
// Lease; a missing GPUNode is created with spec.nodeName only.
//
// The constructor creates the Leases, starts everything and returns once
// the informers have listed (throws std::runtime_error when they do not
// within a minute); the destructor (or stop()) stops and joins every thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cluster_shape.h"
#include "gpupool/kube/client.h"
#include "gpupool/runtime/controller.h"
#include "gpupool/runtime/informer.h"
#include "sim_agent.h"

namespace gpupool::bench {

struct FleetOptions {
  std::chrono::milliseconds install_time{std::chrono::seconds(2)};
  int workers = 8;
  int lease_threads = 0;  // 0: one per 250 nodes, at least 1, at most 16
  std::string lease_namespace = "gpupool-system";
  std::chrono::milliseconds lease_interval{std::chrono::seconds(10)};
  int lease_duration_s = 40;
  int writers = 16;  // creating the Leases at the start
};

struct FleetCounts {
  std::uint64_t passes = 0, status_writes = 0, cordons = 0, uncordons = 0, installs = 0, conflicts = 0, errors = 0,
                lease_renewals = 0, lease_failures = 0;
};

// The simulated hardware of a node of `shape` (its pool's model, the
// catalog's name and memory).
SimHardware hardware_of(const ClusterShape& shape, std::size_t node);

class AgentFleet : private runtime::Reconciler {
 public:
  AgentFleet(kube::Client& client, const ClusterShape& shape, FleetOptions options);
  ~AgentFleet() override;
  AgentFleet(const AgentFleet&) = delete;
  AgentFleet& operator=(const AgentFleet&) = delete;

  void stop();
  FleetCounts counts() const;

 private:
  runtime::Result reconcile(const runtime::Request& request, std::stop_token stop) override;
  void renew_leases(std::size_t first, std::size_t step, std::stop_token stop);
  struct Slot {
    std::unique_ptr<SimAgent> agent;
    std::optional<api::GPUNodeStatus> written;  // the last status written
  };
  void write_status(Slot& slot, const SimObserved& o);

  struct Counters {
    std::atomic<std::uint64_t> passes{0}, status_writes{0}, cordons{0}, uncordons{0}, installs{0}, conflicts{0},
        errors{0}, lease_renewals{0}, lease_failures{0};
  };

  kube::Client& client_;
  FleetOptions options_;
  std::vector<std::string> names_;
  // Fixed after construction; a slot is touched only by the pass of its node.
  std::map<std::string, std::unique_ptr<Slot>> slots_;
  Counters counters_;
  runtime::InformerFactory factory_;
  std::shared_ptr<runtime::Informer<kube::Object>> gpunodes_, nodes_;
  std::unique_ptr<runtime::Controller> controller_;
  std::jthread controller_thread_;
  std::vector<std::jthread> lease_threads_;
};

}  // namespace gpupool::bench
