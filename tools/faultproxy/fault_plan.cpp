#include "gpupool/faultproxy/fault_plan.h"

#include <stdexcept>
#include <utility>

namespace gpupool::faultproxy {
namespace {

constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

bool is_error_status(int status) { return status >= 400 && status <= 599; }

}  // namespace

bool Match::matches(std::string_view request_method, std::string_view request_path,
                    std::string_view request_query) const {
  return (method.empty() || method == request_method) && request_path.substr(0, path_prefix.size()) == path_prefix &&
         (query_contains.empty() || request_query.find(query_contains) != std::string_view::npos);
}

Fault Fault::error(int status, int retry_after_seconds) {
  Fault f;
  f.kind = Kind::Status;
  f.status = status;
  f.retry_after_seconds = retry_after_seconds;
  return f;
}

Fault Fault::delayed(std::chrono::milliseconds delay) {
  Fault f;
  f.kind = Kind::Delay;
  f.delay = delay;
  return f;
}

Fault Fault::cut(std::uint64_t after_response_bytes) {
  Fault f;
  f.kind = Kind::Cut;
  f.cut_after_bytes = after_response_bytes;
  return f;
}

int Fault::effective_retry_after() const {
  if (retry_after_seconds == kDefaultRetryAfter) return status == 429 ? 1 : 0;
  return retry_after_seconds > 0 ? retry_after_seconds : 0;
}

FaultPlan::FaultPlan(std::uint64_t seed) : seed_(seed) {}

double FaultPlan::draw(std::uint64_t seed, std::uint64_t index) {
  // splitmix64: the index-th output of the generator seeded with `seed`.
  std::uint64_t z = seed + (index + 1) * kGolden;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * 0x1.0p-53;  // 53 random bits
}

Decision FaultPlan::decide(std::string_view method, std::string_view path, std::string_view query) {
  std::lock_guard lock(mu_);
  Decision d;
  d.index = next_index_++;
  d.delay = delay_;
  std::optional<Fault> chosen;
  for (auto it = rules_.begin(); it != rules_.end(); ++it) {
    if (!it->match.matches(method, path, query)) continue;
    chosen = it->fault;
    if (--it->count <= 0) rules_.erase(it);
    break;
  }
  if (!chosen) {
    const double u = draw(seed_, d.index);
    double end = 0;
    for (const Share& s : shares_) {
      if (!s.match.matches(method, path, query)) continue;
      end += s.share;
      if (u < end) {
        chosen = Fault::error(s.status, s.retry_after_seconds);
        break;
      }
    }
  }
  if (chosen && chosen->kind == Fault::Kind::Delay) {
    d.delay += chosen->delay;
    chosen.reset();
  }
  d.fault = std::move(chosen);
  return d;
}

void FaultPlan::set_delay(std::chrono::milliseconds delay) {
  std::lock_guard lock(mu_);
  delay_ = delay.count() > 0 ? delay : std::chrono::milliseconds(0);
}

void FaultPlan::set_error_share(int status, double share, int retry_after_seconds, Match match) {
  if (!is_error_status(status)) throw std::invalid_argument("error share: status must be 400..599");
  if (!(share >= 0.0 && share <= 1.0)) throw std::invalid_argument("error share: share must be in [0, 1]");
  std::lock_guard lock(mu_);
  for (auto it = shares_.begin(); it != shares_.end(); ++it) {
    if (it->status == status && it->match.method == match.method && it->match.path_prefix == match.path_prefix &&
        it->match.query_contains == match.query_contains) {
      shares_.erase(it);
      break;
    }
  }
  if (share > 0) shares_.push_back(Share{std::move(match), status, share, retry_after_seconds});
}

void FaultPlan::add_rule(Rule rule) {
  if (rule.count < 1) throw std::invalid_argument("fault rule: count must be at least 1");
  if (rule.fault.kind == Fault::Kind::Status && !is_error_status(rule.fault.status)) {
    throw std::invalid_argument("fault rule: status must be 400..599");
  }
  std::lock_guard lock(mu_);
  rules_.push_back(std::move(rule));
}

void FaultPlan::refuse_for(std::chrono::milliseconds duration) {
  std::lock_guard lock(mu_);
  refuse_until_ = duration.count() > 0 ? std::chrono::steady_clock::now() + duration
                                       : std::chrono::steady_clock::time_point{};
}

bool FaultPlan::refusing() const { return refusal_left().count() > 0; }

std::chrono::milliseconds FaultPlan::refusal_left() const {
  std::lock_guard lock(mu_);
  const auto left = refuse_until_ - std::chrono::steady_clock::now();
  return left.count() > 0 ? std::chrono::ceil<std::chrono::milliseconds>(left) : std::chrono::milliseconds(0);
}

void FaultPlan::set_seed(std::uint64_t seed) {
  std::lock_guard lock(mu_);
  seed_ = seed;
  next_index_ = 0;
}

void FaultPlan::reset() {
  std::lock_guard lock(mu_);
  delay_ = std::chrono::milliseconds(0);
  shares_.clear();
  rules_.clear();
  refuse_until_ = {};
}

}  // namespace gpupool::faultproxy
