// Each TenantQuota's usage, kept incrementally from pod events: an event
// moves only that pod's charge (no recount per event). Pure; the caller
// serialises calls.
//
// A pod counts as `used` once admitted (past the gate) until it terminates
// or is deleted, and as `waiting` while it is held at the gate. What a pod
// counts as is decided by the caller (pod_state below reads it from the pod).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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
  // Distinct quota and resource names the pods' entries hold (each once).
  std::size_t names() const { return names_.size(); }

  // The totals recomputed from every pod: what the incremental totals must equal.
  std::map<std::string, Amounts> recount_used() const;
  std::map<std::string, Amounts> recount_waiting() const;
  const std::map<std::string, Amounts>& all_used() const { return used_; }
  const std::map<std::string, Amounts>& all_waiting() const { return waiting_; }

 private:
  // Names many pods share (quota keys, resource names), held once: a pod's
  // entry points at them. Counted, so names no entry holds go away.
  class Names {
   public:
    const std::string* hold(const std::string& name);
    void release(const std::string* name);
    std::size_t size() const { return held_.size(); }

   private:
    std::map<std::string, std::size_t, std::less<>> held_;
  };
  // What the ledger keeps per pod (one per cached GPU pod, so kept small):
  // the charge with its names held in names_, in Amounts' order. Nearly
  // every pod is charged one resource: that one is kept inline, more apart
  // (a vector's allocation per pod was a fifth of what a ledger held).
  using Item = std::pair<const std::string*, std::int64_t>;
  struct Entry {
    const std::string* quota = nullptr;
    PodQuotaState state = PodQuotaState::waiting;
    std::uint32_t size = 0;               // items in the charge
    Item one{nullptr, 0};                 // the item when size == 1
    std::unique_ptr<Item[]> many;         // the items when size > 1
    const Item* begin() const { return size > 1 ? many.get() : &one; }
    const Item* end() const { return begin() + size; }
    bool same_as(const PodCharge& c) const;
  };
  void apply(const Entry& e, int sign);
  Entry hold(const PodCharge& c);
  void release(const Entry& e);
  static void move(std::map<std::string, Amounts>& totals, const Entry& e, int sign);

  Names names_;
  std::map<std::string, Entry> pods_;
  std::map<std::string, Amounts> used_, waiting_;  // quota -> totals; quotas at zero dropped
};

}  // namespace gpupool::quota
