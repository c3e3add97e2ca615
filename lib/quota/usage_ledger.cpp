#include "gpupool/quota/usage_ledger.h"

#include <algorithm>
#include <stdexcept>
#include <string>

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

void UsageLedger::apply(const Entry& e, std::size_t book, int sign) {
  move(e.state == PodQuotaState::admitted ? used_[book] : waiting_[book], e, sign);
  touched_[book].insert(*e.quota);  // no allocation when already there
}

std::vector<std::string> UsageLedger::take_touched(std::size_t book) {
  auto& touched = touched_.at(book);
  std::vector<std::string> out(touched.begin(), touched.end());
  touched.clear();
  return out;
}

bool UsageLedger::set(const std::string& pod, const std::optional<PodCharge>& charge, std::size_t book) {
  if (book >= kMaxBooks) throw std::out_of_range("UsageLedger: no book " + std::to_string(book));
  auto it = pods_.find(pod);
  Entry* current = it != pods_.end() && it->second[book].quota != nullptr ? &it->second[book] : nullptr;
  if (current && charge && current->same_as(*charge)) return false;
  if (!current && !charge) return false;
  if (current) {
    apply(*current, book, -1);
    release(*current);
    *current = Entry{};
  }
  if (charge) {
    Entry e = hold(*charge);
    apply(e, book, +1);
    if (it == pods_.end()) it = pods_.try_emplace(pod).first;
    it->second[book] = std::move(e);
  } else if (std::all_of(it->second.begin(), it->second.end(), [](const Entry& e) { return e.quota == nullptr; })) {
    pods_.erase(it);
  }
  return true;
}

const Amounts& UsageLedger::used(const std::string& account, std::size_t book) const {
  const auto& totals = used_.at(book);
  auto it = totals.find(account);
  return it == totals.end() ? kNone : it->second;
}

const Amounts& UsageLedger::waiting(const std::string& account, std::size_t book) const {
  const auto& totals = waiting_.at(book);
  auto it = totals.find(account);
  return it == totals.end() ? kNone : it->second;
}

std::map<std::string, Amounts> UsageLedger::recount(std::size_t book, PodQuotaState state) const {
  std::map<std::string, Amounts> out;
  for (const auto& [pod, books] : pods_) {
    const Entry& e = books.at(book);
    if (e.quota != nullptr && e.state == state) move(out, e, +1);
  }
  return out;
}

std::map<std::string, std::map<std::string, Amounts>> UsageLedger::used_by_pod(const std::set<std::string>& accounts,
                                                                               std::size_t book) const {
  std::map<std::string, std::map<std::string, Amounts>> out;
  for (const auto& a : accounts) out[a];
  if (accounts.empty()) return out;
  for (const auto& [pod, books] : pods_) {
    const Entry& e = books.at(book);
    if (e.quota == nullptr || e.state != PodQuotaState::admitted) continue;
    auto account = out.find(*e.quota);
    if (account == out.end()) continue;
    Amounts& charge = account->second[pod];
    for (const auto& [resource, amount] : e) charge[*resource] = amount;
  }
  return out;
}

std::map<std::string, Amounts> UsageLedger::recount_used(std::size_t book) const {
  return recount(book, PodQuotaState::admitted);
}

std::map<std::string, Amounts> UsageLedger::recount_waiting(std::size_t book) const {
  return recount(book, PodQuotaState::waiting);
}

}  // namespace gpupool::quota
