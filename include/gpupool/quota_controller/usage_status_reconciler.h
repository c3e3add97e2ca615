// Each TenantQuota's status.used, .waiting and .borrowed (used above
// status.granted, quota::above), one quota per key, from the usage the
// admission reconciler keeps (admission_reconciler.h: its ledger, moved by
// every pod event). The only writer of those three fields.
//
// Apart from the admission pass, which reads all quotas and pools: a pod's
// change reaches its quota's status in one small pass and one write, not
// after a pass over the whole cluster (at 2,000 quotas and 5,000 nodes that
// pass took 100-200 ms, and the usage waited for all of it).
//
// Keys: the quotas whose usage may have moved (the admission reconciler's
// on_usage_touched: pod events, its own admissions, every quota when its
// charge map changes, so also at start) and quotas whose grant or usage
// figures changed in the informer (quota_usage_status_changed, below).
// A quota the admission reconciler does not charge (not read yet, or being
// deleted) is left alone. Writes only what differs from the informer's copy,
// with its resourceVersion (a conflict reads afresh and tries again). Run by
// the leader only, as the admission reconciler.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "gpupool/kube/client.h"
#include "gpupool/kube/object.h"
#include "gpupool/quota/amounts.h"
#include "gpupool/runtime/controller.h"
#include "gpupool/runtime/store.h"

namespace gpupool::quota_controller {

// A quota's usage as the admission reconciler's ledger holds it now.
struct QuotaUsage {
  quota::Amounts used;     // admitted pods' requests, past the gate, not finished
  quota::Amounts waiting;  // requests of pods held at the gate
  bool operator==(const QuotaUsage&) const = default;
};

// status.<field> of a TenantQuota as amounts (unreadable entries skipped, none at 0).
quota::Amounts status_amounts(const rapidjson::Value& quota, const char* field);

class UsageStatusReconciler : public runtime::Reconciler {
 public:
  // `usage_of(key)`: the quota's usage now; nullopt when the quota is not charged.
  using UsageOf = std::function<std::optional<QuotaUsage>(const std::string& quota_key)>;
  UsageStatusReconciler(kube::Client& client, runtime::Store<kube::Object>& quotas, UsageOf usage_of)
      : client_(client), quotas_(quotas), usage_of_(std::move(usage_of)) {}

  runtime::Result reconcile(const runtime::Request& request, std::stop_token stop) override;

 private:
  kube::Client& client_;
  runtime::Store<kube::Object>& quotas_;
  UsageOf usage_of_;
};

// For the quota informer's watch: status.granted moved (borrowed follows
// it), or status.used, .waiting or .borrowed did, mostly the echo of this
// reconciler's own write. Waking on the echo is what makes a pass that read
// a stale copy safe: the informer's copy may still lack the last write, and
// a pass that found the usage equal to that older copy wrote nothing, which
// left the written (now wrong) figures in place until the next pod event.
bool quota_usage_status_changed(const kube::Object& old_obj, const kube::Object& new_obj);

}  // namespace gpupool::quota_controller
