#include "gpupool/quota/usage_ledger.h"

#include <stdexcept>

namespace gpupool::quota {
namespace {

const Amounts kNone;

}  // namespace

const std::string* UsageLedger::Names::hold(const std::string& name) {
  auto it = held_.try_emplace(name, 0).first;
  ++it->second;
  return &it->first;  // a std::map key does not move while the entry lives
}

void UsageLedger::Names::release(const std::string* name) {
  auto it = held_.find(*name);
  if (it == held_.end() || &it->first != name) throw std::logic_error("UsageLedger: a name released that is not held");
  if (--it->second == 0) held_.erase(it);
}

bool UsageLedger::Entry::same_as(const PodCharge& c) const {
  if (*quota != c.quota || state != c.state || size != c.charge.size()) return false;
  auto it = c.charge.begin();
  for (const auto& [resource, amount] : *this) {
    if (*resource != it->first || amount != it->second) return false;
    ++it;
  }
  return true;
}

UsageLedger::Entry UsageLedger::hold(const PodCharge& c) {
  Entry e;
  e.quota = names_.hold(c.quota);
  e.state = c.state;
  e.size = static_cast<std::uint32_t>(c.charge.size());
  if (e.size > 1) e.many = std::make_unique<Item[]>(e.size);
  Item* out = e.size > 1 ? e.many.get() : &e.one;
  for (const auto& [resource, amount] : c.charge) *out++ = {names_.hold(resource), amount};
  return e;
}

void UsageLedger::release(const Entry& e) {
  names_.release(e.quota);
  for (const auto& [resource, amount] : e) names_.release(resource);
}

void UsageLedger::move(std::map<std::string, Amounts>& totals, const Entry& e, int sign) {
  Amounts& t = totals[*e.quota];
  for (const auto& [resource, amount] : e) {
    auto& x = t[*resource];
    x += sign * amount;
    if (x == 0) t.erase(*resource);
  }
  if (t.empty()) totals.erase(*e.quota);
}

void UsageLedger::apply(const Entry& e, int sign) {
  move(e.state == PodQuotaState::admitted ? used_ : waiting_, e, sign);
}

bool UsageLedger::set(const std::string& pod, const std::optional<PodCharge>& charge) {
  auto it = pods_.find(pod);
  if (it != pods_.end() && charge && it->second.same_as(*charge)) return false;
  if (it == pods_.end() && !charge) return false;
  if (it != pods_.end()) {
    apply(it->second, -1);
    release(it->second);
    pods_.erase(it);
  }
  if (charge) {
    Entry e = hold(*charge);
    apply(e, +1);
    pods_.emplace(pod, std::move(e));
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
  for (const auto& [pod, e] : pods_) {
    if (e.state == PodQuotaState::admitted) move(out, e, +1);
  }
  return out;
}

std::map<std::string, Amounts> UsageLedger::recount_waiting() const {
  std::map<std::string, Amounts> out;
  for (const auto& [pod, e] : pods_) {
    if (e.state == PodQuotaState::waiting) move(out, e, +1);
  }
  return out;
}

}  // namespace gpupool::quota
