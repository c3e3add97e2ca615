#include "gpupool/quota/usage_ledger.h"

namespace gpupool::quota {
namespace {

const Amounts kNone;

void move(std::map<std::string, Amounts>& totals, const std::string& quota, const Amounts& charge, int sign) {
  Amounts& t = totals[quota];
  for (const auto& [r, v] : charge) {
    auto& x = t[r];
    x += sign * v;
    if (x == 0) t.erase(r);
  }
  if (t.empty()) totals.erase(quota);
}

}  // namespace

void UsageLedger::apply(const PodCharge& c, int sign) {
  move(c.state == PodQuotaState::admitted ? used_ : waiting_, c.quota, c.charge, sign);
}

bool UsageLedger::set(const std::string& pod, const std::optional<PodCharge>& charge) {
  auto it = pods_.find(pod);
  if (it != pods_.end() && charge && it->second == *charge) return false;
  if (it == pods_.end() && !charge) return false;
  if (it != pods_.end()) {
    apply(it->second, -1);
    pods_.erase(it);
  }
  if (charge) {
    apply(*charge, +1);
    pods_.emplace(pod, *charge);
  }
  return true;
}

const Amounts& UsageLedger::used(const std::string& quota) const {
  auto it = used_.find(quota);
  return it == used_.end() ? kNone : it->second;
}

const Amounts& UsageLedger::waiting(const std::string& quota) const {
  auto it = waiting_.find(quota);
  return it == waiting_.end() ? kNone : it->second;
}

std::map<std::string, Amounts> UsageLedger::recount_used() const {
  std::map<std::string, Amounts> out;
  for (const auto& [pod, c] : pods_) {
    if (c.state == PodQuotaState::admitted) move(out, c.quota, c.charge, +1);
  }
  return out;
}

std::map<std::string, Amounts> UsageLedger::recount_waiting() const {
  std::map<std::string, Amounts> out;
  for (const auto& [pod, c] : pods_) {
    if (c.state == PodQuotaState::waiting) move(out, c.quota, c.charge, +1);
  }
  return out;
}

}  // namespace gpupool::quota
