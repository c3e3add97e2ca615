// The tenant of each namespace whose pods hold this node's GPUs, for the
// `tenant` label of the agent's GPU metrics (gpu_metrics_collector.h, README
// "GPU metrics"). A tenant is what quota::tenant_of says (quota/eligibility.h):
// the namespace's label gpupool.io/tenant, else the namespace's name.
//
// A cache namespace -> tenant in front of a fetcher of the namespace's labels
// (the agent's: GET /api/v1/namespaces/NAME, so the agent needs RBAC `get`
// on namespaces; see namespace_label_fetcher below).
//
// Contract of tenants(namespaces):
// - Each namespace asked for is answered: an entry fetched less than `ttl`
//   ago is used as it is; otherwise its labels are fetched again (on the
//   caller's thread), so a label added or changed shows within `ttl`.
// - A namespace the fetcher says does not exist (nullopt) is its own tenant,
//   and is asked again after `ttl` like any other.
// - A fetch that throws (403 without the RBAC, the API server down, a
//   timeout) never throws out: the namespace keeps the tenant last fetched,
//   or is its own tenant when none was; it is fetched again after `retry`
//   (or `ttl`, when shorter). The first failure of a streak is logged once
//   (warn, naming the namespace and the error), and so is the recovery
//   (info); the failures between are not.
// - Memory is bounded by the namespaces asked for recently: an entry not
//   asked for during `forget_after` is dropped (on any call), so a namespace
//   whose pods left costs nothing after that.
// Calls are serialized (a mutex held across the fetches).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

namespace gpupool::kube {
class Client;
}

namespace gpupool::node {

struct NamespaceTenantsOptions {
  std::chrono::milliseconds ttl{std::chrono::minutes(5)};        // a fetched tenant is used this long
  std::chrono::milliseconds retry{std::chrono::seconds(30)};     // after a failed fetch, the next try
  std::chrono::milliseconds forget_after{std::chrono::minutes(15)};  // entries not asked for this long are dropped
};

class NamespaceTenants {
 public:
  using Labels = std::map<std::string, std::string>;
  // The namespace's labels; nullopt: no such namespace. May throw.
  using Fetcher = std::function<std::optional<Labels>(const std::string& ns)>;
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  explicit NamespaceTenants(Fetcher fetch, NamespaceTenantsOptions options = {},
                            Clock clock = [] { return std::chrono::steady_clock::now(); });

  // Namespace -> tenant for each of `namespaces` (see the contract above).
  std::map<std::string, std::string> tenants(const std::set<std::string>& namespaces);

  // Entries cached now.
  std::size_t size() const;

 private:
  struct Entry {
    std::string tenant;
    std::chrono::steady_clock::time_point next_fetch;
    std::chrono::steady_clock::time_point asked;
    bool failing = false;  // in a failure streak (logged at its start)
  };
  const std::string& refresh(const std::string& ns, std::chrono::steady_clock::time_point now);

  Fetcher fetch_;
  NamespaceTenantsOptions options_;
  Clock clock_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;
};

// The agent's fetcher: GET /api/v1/namespaces/NAME with `client`, answering
// metadata.labels (empty when none); nullopt on 404. Other API and transport
// errors are thrown (NamespaceTenants keeps the last tenant). Give it a client
// with few or no retries and a short timeout: it runs on the telemetry thread.
NamespaceTenants::Fetcher namespace_label_fetcher(std::shared_ptr<kube::Client> client);

}  // namespace gpupool::node
