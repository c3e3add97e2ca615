// Each TenantQuota's usage, kept incrementally from pod events: an event
// moves only that pod's charge (no recount per event). Pure; the caller
// serialises calls.
//
// A pod counts as `used` once admitted (past the gate) until it terminates
// or is deleted, and as `waiting` while it is held at the gate. What a pod
// counts as is decided by the caller (pod_state below reads it from the pod).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "gpupool/quota/amounts.h"

namespace gpupool::quota {

enum class PodQuotaState { waiting, admitted };

struct PodCharge {
  std::string quota;  // TenantQuota key "namespace/name"
  Amounts charge;
  PodQuotaState state = PodQuotaState::waiting;

  bool operator==(const PodCharge&) const = default;
};

class UsageLedger {
 public:
  // The pod now counts as `charge`, or no more (nullopt: deleted, terminated,
  // or not charged to any quota). Returns whether any total changed.
  bool set(const std::string& pod, const std::optional<PodCharge>& charge);

  const Amounts& used(const std::string& quota) const;
  const Amounts& waiting(const std::string& quota) const;
  std::size_t pods() const { return pods_.size(); }

  // The totals recomputed from every pod: what the incremental totals must equal.
  std::map<std::string, Amounts> recount_used() const;
  std::map<std::string, Amounts> recount_waiting() const;
  const std::map<std::string, Amounts>& all_used() const { return used_; }
  const std::map<std::string, Amounts>& all_waiting() const { return waiting_; }

 private:
  void apply(const PodCharge& c, int sign);
  std::map<std::string, PodCharge> pods_;
  std::map<std::string, Amounts> used_, waiting_;  // quota -> totals; quotas at zero dropped
};

}  // namespace gpupool::quota
