// What the quota reconcilers read about one pool and the namespaces from the
// stores, decoded once, shared by the grant and admission reconcilers.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/api/gpupolicy.h"
#include "gpupool/api/gpupool.h"
#include "gpupool/api/quantity.h"
#include "gpupool/api/tenantquota.h"
#include "gpupool/kube/object.h"
#include "gpupool/quota/amounts.h"
#include "gpupool/quota/charging.h"
#include "gpupool/quota/eligibility.h"
#include "gpupool/runtime/store.h"

namespace gpupool::quota_controller {

struct PoolView {
  std::optional<api::GPUPool> pool;      // nullopt: missing, being deleted, or unreadable
  std::optional<api::GPUPolicy> policy;  // its spec.policyRef's, when it exists
  std::string policy_name;
  // The pool's status.capacity by resource name and, for gpupool.io/gpu, the
  // physical GPUs its members report (GPUNode status.gpuCount).
  quota::Amounts capacity;
  // resource -> millionths of a GPU per device (pool_unit_costs.h), with the
  // MIG instance sizes the members report.
  quota::Amounts unit_costs;

  const api::QuotaRules* rules() const { return policy && policy->spec.quota ? &*policy->spec.quota : nullptr; }
};

// Indexes of the stores by the pool each object names: GPUNodes by
// spec.pool, TenantQuotas by spec.poolRef.name. Passes read one pool's
// members and quotas; a scan of every GPUNode per pool was most of the quota
// reconcilers' CPU at 5,000 nodes in 20 pools.
// (runtime/field_index.h: one index per path, shared with the pool
// reconciler's GPUNodes by spec.pool.)
inline constexpr const char* kGpuNodesByPool = "spec.pool";
inline constexpr const char* kQuotasByPool = "spec.poolRef.name";
void index_gpunodes_by_pool(runtime::Store<kube::Object>& gpunodes);
void index_quotas_by_pool(runtime::Store<kube::Object>& quotas);

// The objects naming `pool`, in key order (the index is added first if the
// store has none).
std::vector<runtime::Store<kube::Object>::Ptr> pool_gpunodes(runtime::Store<kube::Object>& gpunodes, const std::string& pool);
std::vector<runtime::Store<kube::Object>::Ptr> pool_quotas(runtime::Store<kube::Object>& quotas, const std::string& pool);

PoolView read_pool(const std::string& name, runtime::Store<kube::Object>& pools, runtime::Store<kube::Object>& policies,
                   runtime::Store<kube::Object>& gpunodes);

// read_pool, kept per pool while the pool, its policy and every member
// GPUNode are at the resourceVersions last read: an admission or grant pass
// then reads nothing again. Walking every member's GPUs and MIG instances on
// each pass was about a quarter of the controller's CPU in a 5,000-node
// rollout. The members are known by a hash of their names and
// resourceVersions in key order (with their count), so about 100 bytes are
// kept per pool, not per member. Objects without a resourceVersion are read
// every time. Thread-safe.
class PoolReader {
 public:
  PoolView read(const std::string& name, runtime::Store<kube::Object>& pools, runtime::Store<kube::Object>& policies,
                runtime::Store<kube::Object>& gpunodes);
  // Pools read from the stores (not from what was kept) so far (for tests).
  std::size_t reads() const;

 private:
  struct Entry {
    std::string pool_version, policy_version;  // "": none; a deleted pool's marked
    std::size_t members = 0;
    std::uint64_t members_hash = 0;
    PoolView view;
  };
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;  // by pool name
  std::size_t reads_ = 0;
};

quota::NamespaceLabels read_namespaces(runtime::Store<kube::Object>& namespaces);

// A namespace's fair-share weight under the rules (1 without rules).
std::int32_t weight_of(const std::string& ns, const api::QuotaRules* rules);

// The TenantQuota as charging sees it (quota/charging.h).
quota::ChargeableQuota chargeable(const api::TenantQuota& q);

// Every TenantQuota in the store not being deleted, decoded (unreadable ones
// skipped), in key order. Keeps what it decoded per resourceVersion, so a
// pass decodes only the quotas written since the last: decoding all 2,000
// of the benchmark's TenantQuotas (status conditions included) on every
// admission and gate pass was a third of the controller's CPU at full size.
// A reader kept across passes holds the decoded quotas (about 2.1 KB each
// with a status and two conditions: 4 MiB at 2,000);
// a temporary one decodes every quota once. Thread-safe.
class QuotaReader {
 public:
  using Decoded = std::shared_ptr<const api::TenantQuota>;
  std::vector<Decoded> read(const runtime::Store<kube::Object>& quotas);
  // Quotas decoded by reads so far (for tests).
  std::size_t decodes() const;

 private:
  struct Entry {
    std::string resource_version;
    Decoded quota;  // null: unreadable at that resourceVersion
  };
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;  // by store key
  std::size_t decodes_ = 0;
};

quota::Amounts to_amounts(const std::map<std::string, api::QuantityValue>& m);
std::map<std::string, api::QuantityValue> to_quantities(const quota::Amounts& a);

}  // namespace gpupool::quota_controller
