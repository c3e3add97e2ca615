// The agent's liveness signal, cheap at thousands of nodes as kubelet's node
// lease is: a coordination.k8s.io/v1 Lease `gpupool-agent-<node>` in the
// agent's namespace, its spec.renewTime moved forward every `interval`
// (10 s by default) by one small merge patch. The controller judges the
// agent alive while renewTime + leaseDurationSeconds is in the future.
#pragma once

#include <chrono>
#include <stop_token>
#include <string>

#include "gpupool/kube/client.h"

namespace gpupool::node {

std::string agent_lease_name(const std::string& node_name);  // "gpupool-agent-<node>"

struct LeaseHeartbeatOptions {
  std::string namespace_ = "gpupool-system";
  std::string node_name;
  std::chrono::milliseconds interval{std::chrono::seconds(10)};
  int lease_duration_seconds = 40;  // four missed renewals
};

class LeaseHeartbeat {
 public:
  LeaseHeartbeat(kube::Client& client, LeaseHeartbeatOptions options);
  // Creates the Lease if missing (taking it over when another holder left
  // it), renews it once. Throws kube::ApiError / TransportError on failure.
  void renew_once();
  // Renews every interval until `stop`; failures are logged and retried at
  // the next tick, never fatal (the agent's work goes on without the API).
  void run(std::stop_token stop);
  std::uint64_t renewals() const { return renewals_; }

 private:
  kube::Client& client_;
  LeaseHeartbeatOptions options_;
  std::uint64_t renewals_ = 0;
};

}  // namespace gpupool::node
