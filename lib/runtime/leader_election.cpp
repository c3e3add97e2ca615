#include "gpupool/runtime/leader_election.h"

#include <rapidjson/document.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

#include "gpupool/common/stoppable_sleep.h"
#include "gpupool/kube/micro_time.h"

namespace gpupool::runtime {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// client-go's JitterFactor: acquisition retries wait retry_period * [1, 2.2).
constexpr double kJitterFactor = 1.2;

kube::GroupVersionResource leases() { return {"coordination.k8s.io", "v1", "leases"}; }

milliseconds jittered(milliseconds d, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  return d + milliseconds(static_cast<int64_t>(static_cast<double>(d.count()) * kJitterFactor * unit(rng)));
}

int64_t int_at(const rapidjson::Value& obj, const char* key) {
  auto it = obj.FindMember(key);
  if (it == obj.MemberEnd() || !it->value.IsInt64()) return 0;
  return it->value.GetInt64();
}

rapidjson::Value spec_value(const LeaseRecord& r, rapidjson::Document::AllocatorType& a) {
  rapidjson::Value spec(rapidjson::kObjectType);
  spec.AddMember("holderIdentity", rapidjson::Value(r.holder_identity.c_str(), a), a);
  spec.AddMember("leaseDurationSeconds", r.lease_duration_seconds, a);
  spec.AddMember("acquireTime", rapidjson::Value(r.acquire_time.c_str(), a), a);
  spec.AddMember("renewTime", rapidjson::Value(r.renew_time.c_str(), a), a);
  spec.AddMember("leaseTransitions", r.lease_transitions, a);
  return spec;
}

// User callbacks other than on_started_leading must not throw; if one does,
// the exception is logged and the election goes on.
template <class F>
void guarded(const char* name, F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    spdlog::error("leader election: the {} callback threw: {}", name, e.what());
  } catch (...) {
    spdlog::error("leader election: the {} callback threw", name);
  }
}

std::string random_uuid() {
  std::random_device rd;
  std::mt19937_64 rng((static_cast<uint64_t>(rd()) << 32) ^ rd());
  uint64_t hi = rng(), lo = rng();
  hi = (hi & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xffff), static_cast<unsigned>(hi & 0xffff),
                static_cast<unsigned>(lo >> 48), static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

}  // namespace

LeaseRecord lease_record_from(const rapidjson::Value& lease) {
  LeaseRecord r;
  if (!lease.IsObject()) return r;
  auto spec_it = lease.FindMember("spec");
  if (spec_it == lease.MemberEnd() || !spec_it->value.IsObject()) return r;
  const auto& spec = spec_it->value;
  r.holder_identity = kube::string_at(spec, {"holderIdentity"});
  r.lease_duration_seconds = int_at(spec, "leaseDurationSeconds");
  r.acquire_time = kube::string_at(spec, {"acquireTime"});
  r.renew_time = kube::string_at(spec, {"renewTime"});
  r.lease_transitions = int_at(spec, "leaseTransitions");
  return r;
}

std::string default_leader_identity() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') std::snprintf(host, sizeof host, "unknown");
  return std::string(host) + "_" + random_uuid();
}

namespace {

LeaderElectionConfig validated(LeaderElectionConfig c, const LeaderCallbacks& cb) {
  using namespace std::chrono;
  if (c.lease_namespace.empty() || c.lease_name.empty()) {
    throw std::invalid_argument("leader election: the lease namespace and name must be set");
  }
  if (c.identity.empty()) c.identity = default_leader_identity();
  if (c.lease_duration < seconds(1) || c.lease_duration % seconds(1) != milliseconds(0)) {
    throw std::invalid_argument("leader election: lease_duration must be a whole number of seconds, at least 1");
  }
  if (c.renew_deadline <= milliseconds(0) || c.retry_period <= milliseconds(0)) {
    throw std::invalid_argument("leader election: renew_deadline and retry_period must be positive");
  }
  if (c.lease_duration <= c.renew_deadline) {
    throw std::invalid_argument("leader election: lease_duration must be greater than renew_deadline");
  }
  if (static_cast<double>(c.renew_deadline.count()) <= kJitterFactor * static_cast<double>(c.retry_period.count())) {
    throw std::invalid_argument("leader election: renew_deadline must be greater than retry_period * 1.2");
  }
  if (!cb.on_started_leading) throw std::invalid_argument("leader election: on_started_leading must be set");
  return c;
}

kube::RestConfig election_rest_config(kube::RestConfig rest, milliseconds renew_deadline) {
  // As client-go's NewFromKubeconfig: one hung request must not use up the
  // whole renew deadline. The election loop does its own retrying.
  rest.timeout = std::max<milliseconds>(std::chrono::seconds(1), renew_deadline / 2);
  rest.max_retries = 0;
  rest.user_agent += " leader-election";
  return rest;
}

}  // namespace

LeaderElector::LeaderElector(const kube::RestConfig& rest, LeaderElectionConfig config, LeaderCallbacks callbacks,
                             std::shared_ptr<kube::HttpTransport> transport)
    : config_(validated(std::move(config), callbacks)),
      callbacks_(std::move(callbacks)),
      client_(election_rest_config(rest, config_.renew_deadline), std::move(transport)) {}

LeaderElector::~LeaderElector() = default;

kube::ResourceRef LeaderElector::lease_ref() const { return {leases(), config_.lease_namespace, config_.lease_name, ""}; }

bool LeaderElector::is_leader() const {
  std::lock_guard lock(mu_);
  return leading_;
}

std::string LeaderElector::leader() const {
  std::lock_guard lock(mu_);
  return observed_.holder_identity;
}

bool LeaderElector::holds() const {
  std::lock_guard lock(mu_);
  return observed_.holder_identity == config_.identity;
}

bool LeaderElector::observed_valid(Clock::time_point now) const {
  std::lock_guard lock(mu_);
  if (!observed_at_) return false;
  return *observed_at_ + std::chrono::seconds(observed_.lease_duration_seconds) > now;
}

void LeaderElector::observe(const LeaseRecord& record) {
  std::lock_guard lock(mu_);
  observed_ = record;
  observed_at_ = Clock::now();
}

void LeaderElector::report_new_leader() {
  std::string holder = leader();
  if (holder == reported_leader_) return;
  reported_leader_ = holder;
  if (holder.empty()) return;
  if (holder != config_.identity) spdlog::info("leader election {}/{}: lease held by {}", config_.lease_namespace, config_.lease_name, holder);
  if (callbacks_.on_new_leader) guarded("on_new_leader", [&] { callbacks_.on_new_leader(holder); });
}

bool LeaderElector::write_lease(const LeaseRecord& record, bool create) {
  try {
    rapidjson::Document answer;
    if (create) {
      rapidjson::Document body(rapidjson::kObjectType);
      auto& a = body.GetAllocator();
      body.AddMember("apiVersion", "coordination.k8s.io/v1", a);
      body.AddMember("kind", "Lease", a);
      rapidjson::Value meta(rapidjson::kObjectType);
      meta.AddMember("name", rapidjson::Value(config_.lease_name.c_str(), a), a);
      meta.AddMember("namespace", rapidjson::Value(config_.lease_namespace.c_str(), a), a);
      body.AddMember("metadata", meta, a);
      body.AddMember("spec", spec_value(record, a), a);
      answer = client_.create(lease_ref().with_name(""), kube::to_json(body));
    } else {
      if (!lease_) return false;
      auto& a = lease_->GetAllocator();
      rapidjson::Value spec = spec_value(record, a);
      auto it = lease_->FindMember("spec");
      if (it != lease_->MemberEnd()) {
        it->value = spec;
      } else {
        lease_->AddMember("spec", spec, a);
      }
      answer = client_.update(lease_ref(), kube::to_json(*lease_));
    }
    observe(lease_record_from(answer));
    lease_ = std::make_unique<rapidjson::Document>(std::move(answer));
    return true;
  } catch (const kube::ApiError& e) {
    if (e.is_conflict() || e.is_already_exists()) {
      spdlog::debug("leader election {}/{}: lost a race for the lease: {}", config_.lease_namespace, config_.lease_name, e.what());
    } else {
      spdlog::warn("leader election {}/{}: cannot {} the lease: {}", config_.lease_namespace, config_.lease_name,
                   create ? "create" : "update", e.what());
    }
  } catch (const std::exception& e) {
    spdlog::warn("leader election {}/{}: cannot {} the lease: {}", config_.lease_namespace, config_.lease_name,
                 create ? "create" : "update", e.what());
  }
  return false;
}

// client-go's tryAcquireOrRenew: true when this candidate holds the lease now.
bool LeaderElector::try_acquire_or_renew() {
  const auto now = Clock::now();
  const std::string stamp = kube::format_micro_time(std::chrono::system_clock::now());
  LeaseRecord desired{config_.identity, config_.lease_duration.count() / 1000, stamp, stamp, 0};

  // Fast path: renew the lease we hold with the object we last wrote.
  if (lease_ && holds() && observed_valid(now)) {
    {
      std::lock_guard lock(mu_);
      desired.acquire_time = observed_.acquire_time;
      desired.lease_transitions = observed_.lease_transitions;
    }
    if (write_lease(desired, false)) return true;
  }

  // Slow path: read the lease as it is now.
  rapidjson::Document current;
  try {
    current = client_.get(lease_ref());
  } catch (const kube::ApiError& e) {
    if (!e.is_not_found()) {
      spdlog::warn("leader election {}/{}: cannot read the lease: {}", config_.lease_namespace, config_.lease_name, e.what());
      return false;
    }
    return write_lease(desired, true);
  } catch (const std::exception& e) {
    spdlog::warn("leader election {}/{}: cannot read the lease: {}", config_.lease_namespace, config_.lease_name, e.what());
    return false;
  }
  LeaseRecord record = lease_record_from(current);
  lease_ = std::make_unique<rapidjson::Document>(std::move(current));
  bool changed;
  {
    std::lock_guard lock(mu_);
    changed = !observed_at_ || !(record == observed_);
  }
  // Expiry counts from when this candidate saw the record change (local clock).
  if (changed) observe(record);

  if (!record.holder_identity.empty() && record.holder_identity != config_.identity && observed_valid(now)) return false;

  if (record.holder_identity == config_.identity) {
    desired.acquire_time = record.acquire_time;
    desired.lease_transitions = record.lease_transitions;
  } else {
    desired.lease_transitions = record.lease_transitions + 1;
  }
  return write_lease(desired, false);
}

// client-go's tryRelease, except that the record just read (not the one last
// observed) must name this candidate: a lease someone else took over is left alone.
void LeaderElector::release() {
  for (int attempt = 0; attempt < 3; ++attempt) {
    try {
      rapidjson::Document current = client_.get(lease_ref());
      LeaseRecord record = lease_record_from(current);
      if (record.holder_identity != config_.identity) return;
      lease_ = std::make_unique<rapidjson::Document>(std::move(current));
      const std::string stamp = kube::format_micro_time(std::chrono::system_clock::now());
      LeaseRecord released{"", 1, stamp, stamp, record.lease_transitions};
      if (write_lease(released, false)) {
        spdlog::info("leader election {}/{}: released the lease", config_.lease_namespace, config_.lease_name);
        return;
      }
    } catch (const std::exception& e) {
      spdlog::warn("leader election {}/{}: cannot release the lease: {}", config_.lease_namespace, config_.lease_name, e.what());
      return;
    }
  }
  spdlog::warn("leader election {}/{}: could not release the lease", config_.lease_namespace, config_.lease_name);
}

ElectionOutcome LeaderElector::run(std::stop_token stop) {
  auto report_status = [this](bool leading) {
    if (callbacks_.on_leader_status) guarded("on_leader_status", [&] { callbacks_.on_leader_status(leading); });
  };
  const std::string lock_name = config_.lease_namespace + "/" + config_.lease_name;
  report_status(false);
  spdlog::info("leader election {}: {} attempting to acquire the lease", lock_name, config_.identity);

  std::mt19937_64 rng(std::random_device{}());
  bool acquired = false;
  while (!stop.stop_requested()) {
    acquired = try_acquire_or_renew();
    report_new_leader();
    if (acquired) break;
    if (!common::sleep_for(jittered(config_.retry_period, rng), stop)) break;
  }
  if (!acquired) return ElectionOutcome::Stopped;
  if (stop.stop_requested()) {  // acquired just as the stop came: do not start work
    if (config_.release_on_cancel) release();
    return ElectionOutcome::Stopped;
  }
  spdlog::info("leader election {}: {} acquired the lease", lock_name, config_.identity);

  // Leadership ends exactly once: by a failed renewal round (the watchdog or
  // this thread), by stop, or by on_started_leading throwing.
  std::stop_source leading;
  std::atomic<bool> lost{false};
  std::once_flag ended;
  auto end_leadership = [&](bool was_lost, const char* why) {
    std::call_once(ended, [&] {
      if (was_lost) {
        lost = true;
        spdlog::warn("leader election {}: {} stopped leading: {}", lock_name, config_.identity, why);
      } else {
        spdlog::info("leader election {}: {} stopping: {}", lock_name, config_.identity, why);
      }
      {
        std::lock_guard lock(mu_);
        leading_ = false;
      }
      leading.request_stop();
      report_status(false);
    });
  };

  {
    std::lock_guard lock(mu_);
    leading_ = true;
  }
  report_status(true);

  std::thread work([&, token = leading.get_token()] {
    try {
      callbacks_.on_started_leading(token);
    } catch (const std::exception& e) {
      spdlog::error("leader election {}: the leader's work failed: {}", lock_name, e.what());
      end_leadership(true, "the leader's work failed");
    } catch (...) {
      end_leadership(true, "the leader's work failed");
    }
  });

  // The renewal round deadline, watched by a thread of its own so that a
  // hanging request cannot delay the end of leadership.
  std::mutex round_mu;
  std::condition_variable_any round_cv;
  std::optional<Clock::time_point> round_deadline;
  uint64_t round_generation = 0;
  std::jthread watchdog([&](std::stop_token self) {
    std::unique_lock lock(round_mu);
    while (!self.stop_requested()) {
      if (round_deadline && Clock::now() >= *round_deadline) {
        lock.unlock();
        end_leadership(true, "the lease could not be renewed within the renew deadline");
        return;
      }
      const uint64_t seen = round_generation;
      auto changed = [&] { return round_generation != seen; };
      if (round_deadline) {
        round_cv.wait_until(lock, self, *round_deadline, changed);
      } else {
        round_cv.wait(lock, self, changed);
      }
    }
  });

  {
    std::stop_callback on_stop(stop, [&] { end_leadership(false, "shutdown requested"); });
    const auto leading_token = leading.get_token();
    while (common::sleep_for(config_.retry_period, leading_token)) {
      {
        std::lock_guard lock(round_mu);
        round_deadline = Clock::now() + config_.renew_deadline;
        ++round_generation;
      }
      round_cv.notify_all();
      bool renewed = false;
      while (!leading_token.stop_requested()) {
        renewed = try_acquire_or_renew();
        report_new_leader();
        if (renewed || !common::sleep_for(config_.retry_period, leading_token)) break;
      }
      if (!renewed) break;
      {
        std::lock_guard lock(round_mu);
        // A success that came after the deadline does not undo the loss.
        if (Clock::now() < *round_deadline) round_deadline.reset();
        ++round_generation;
      }
      round_cv.notify_all();
    }
    // Unregistering on_stop here waits for a callback already running.
  }
  watchdog.request_stop();
  watchdog.join();
  end_leadership(true, "renewal failed");  // no-op when already ended
  work.join();

  if (config_.release_on_cancel) release();
  if (callbacks_.on_stopped_leading) guarded("on_stopped_leading", callbacks_.on_stopped_leading);
  return lost ? ElectionOutcome::Lost : ElectionOutcome::Stopped;
}

}  // namespace gpupool::runtime
