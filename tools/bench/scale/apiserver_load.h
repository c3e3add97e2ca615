// What the kube-apiserver did between two scrapes of its /metrics, for the
// scale benchmark's "where the time goes" (its rollout step on a small
// machine is bound by the apiserver's CPU, shared with etcd, kwok, the
// simulated agents and the controller). Pure.
//
// CPU: process_cpu_seconds_total. Requests: apiserver_request_total summed
// over codes, scopes, versions and components, by verb and resource (with
// its subresource: "PATCH gpunodes/status"). Counters that fell (a restart
// between the scrapes) count from zero.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpupool::bench {

struct RequestCount {
  std::string what;  // "PATCH gpunodes/status", "PUT leases"
  double count = 0;
  bool operator==(const RequestCount&) const = default;
};

struct ApiserverLoad {
  double cpu_s = 0;
  double requests = 0;
  std::vector<RequestCount> top;  // the `top` most frequent, most first (ties by name)
};

ApiserverLoad apiserver_load(std::string_view before, std::string_view after, std::size_t top);

// "1234 PATCH gpunodes/status, 987 PUT leases, ..." (at most `top` entries).
std::string describe_requests(const ApiserverLoad& load);

}  // namespace gpupool::bench
