// Each TenantQuota's usage, kept incrementally from pod events: an event
// moves only that pod's charge (no recount per event). Pure; the caller
// serialises calls.
//
// A pod counts as `used` once admitted (past the gate) until it terminates
// or is deleted, and as `waiting` while it is held at the gate. What a pod
// counts as is decided by the caller (pod_state below reads it from the pod).
#pragma once

#include <array>
#include <cstdint>
#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>
#include <utility>

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
  // A pod may be charged in up to kMaxBooks books at once, each with its own
  // accounts and totals (the admission reconciler keeps two: by quota, in
  // the quota's resources, and by pool, in devices). One entry per pod holds
  // its charges in every book, so its key and map node are kept once.
  static constexpr std::size_t kMaxBooks = 2;

  // The pod now counts as `charge` in `book`, or no more (nullopt: deleted,
  // terminated, or not charged to any account). Returns whether any total
  // changed. Throws std::out_of_range for a book at or past kMaxBooks.
  bool set(const std::string& pod, const std::optional<PodCharge>& charge, std::size_t book = 0);

  const Amounts& used(const std::string& account, std::size_t book = 0) const;
  const Amounts& waiting(const std::string& account, std::size_t book = 0) const;
  // Pods charged in any book.
  std::size_t pods() const { return pods_.size(); }
  // Distinct account and resource names the pods' entries hold (each once).
  std::size_t names() const { return names_.size(); }

  // The totals recomputed from every pod: what the incremental totals must equal.
  std::map<std::string, Amounts> recount_used(std::size_t book = 0) const;
  std::map<std::string, Amounts> recount_waiting(std::size_t book = 0) const;
  const std::map<std::string, Amounts>& all_used(std::size_t book = 0) const { return used_.at(book); }
  // Each of `accounts` (every one listed, also with none) -> its pods
  // counted as used in `book` -> their charge. Walks every pod: for the
  // rare pass that needs who holds what, not for each event.
  std::map<std::string, std::map<std::string, Amounts>> used_by_pod(const std::set<std::string>& accounts,
                                                                    std::size_t book = 0) const;
  const std::map<std::string, Amounts>& all_waiting(std::size_t book = 0) const { return waiting_.at(book); }

  // The accounts of `book` whose used or waiting totals set() moved since the
  // last call, each once, in order; then none until set() moves one again.
  // (A total moved away and back counts: readers compare with what they
  // wrote.) At most every account of the book is held meanwhile.
  std::vector<std::string> take_touched(std::size_t book = 0);

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
    const std::string* quota = nullptr;  // the account; null: not charged in this book
    PodQuotaState state = PodQuotaState::waiting;
    std::uint32_t size = 0;               // items in the charge
    Item one{nullptr, 0};                 // the item when size == 1
    std::unique_ptr<Item[]> many;         // the items when size > 1
    const Item* begin() const { return size > 1 ? many.get() : &one; }
    const Item* end() const { return begin() + size; }
    bool same_as(const PodCharge& c) const;
  };
  using Books = std::array<Entry, kMaxBooks>;
  void apply(const Entry& e, std::size_t book, int sign);
  Entry hold(const PodCharge& c);
  void release(const Entry& e);
  static void move(std::map<std::string, Amounts>& totals, const Entry& e, int sign);
  std::map<std::string, Amounts> recount(std::size_t book, PodQuotaState state) const;

  Names names_;
  std::map<std::string, Books> pods_;  // pods charged in at least one book
  // Per book: account -> totals; accounts at zero dropped.
  std::array<std::map<std::string, Amounts>, kMaxBooks> used_, waiting_;
  std::array<std::set<std::string>, kMaxBooks> touched_;  // since take_touched
};

}  // namespace gpupool::quota
