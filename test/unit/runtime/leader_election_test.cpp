// Leader election without a cluster: an in-memory Lease API (with
// resourceVersion conflicts) for the election logic, and the scripted HTTP
// server for renewals that fail or hang. Timings: lease 2 s, renew deadline
// 1.5 s, retry period 0.3 s.
#include "gpupool/runtime/leader_election.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <regex>
#include <thread>

#include "support/scripted_server.h"

namespace gpupool::runtime {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using test::Step;

constexpr auto kLease = 2s;
constexpr auto kRenew = 1500ms;
constexpr auto kRetry = 300ms;
// Scheduling slack allowed on top of the computed bounds (sanitized builds on shared cores).
constexpr auto kSlack = 250ms;

// Polls every 10 ms (testenv::wait_until's doubling pause overflows after
// ~60 rounds when capped this low).
bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (condition()) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
}

LeaderElectionConfig short_config(const std::string& identity) {
  LeaderElectionConfig c;
  c.lease_namespace = "ns";
  c.lease_name = "lock";
  c.identity = identity;
  c.lease_duration = kLease;
  c.renew_deadline = kRenew;
  c.retry_period = kRetry;
  return c;
}

std::string lease_json(const std::string& rv, const std::string& holder, int duration, const std::string& renew,
                       int transitions) {
  return R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"lock","namespace":"ns","resourceVersion":")" +
         rv + R"("},"spec":{"holderIdentity":")" + holder + R"(","leaseDurationSeconds":)" + std::to_string(duration) +
         R"(,"acquireTime":")" + renew + R"(","renewTime":")" + renew + R"(","leaseTransitions":)" +
         std::to_string(transitions) + "}}";
}

// An in-memory coordination.k8s.io Lease endpoint with optimistic concurrency.
class FakeLeaseApi final : public kube::HttpTransport {
 public:
  struct Write {
    Clock::time_point at;
    LeaseRecord record;
  };

  kube::HttpResponse send(const kube::HttpRequest& r) override {
    std::lock_guard lock(mu_);
    methods_.push_back(r.method);
    if (fail_status_ != 0) return answer(fail_status_, test::status_json(fail_status_, "InternalError", "injected"));
    if (r.method == "GET") {
      if (!lease_) return answer(404, test::status_json(404, "NotFound", "leases \"lock\" not found"));
      return answer(200, kube::to_json(*lease_));
    }
    if (r.method == "POST") {
      if (lease_) return answer(409, test::status_json(409, "AlreadyExists", "leases \"lock\" already exists"));
      return store(r.body, 201);
    }
    if (r.method == "PUT") {
      if (!lease_) return answer(404, test::status_json(404, "NotFound", "leases \"lock\" not found"));
      if (before_put_) {
        before_put_(*this);
        before_put_ = nullptr;
      }
      auto body = kube::parse_json(r.body);
      if (kube::string_at(body, {"metadata", "resourceVersion"}) != std::to_string(rv_)) {
        ++conflicts_;
        return answer(409, test::status_json(409, "Conflict", "the object has been modified"));
      }
      return store(r.body, 200);
    }
    return answer(405, test::status_json(405, "MethodNotAllowed", r.method));
  }
  int stream(const kube::HttpRequest&, const kube::StreamHandler&) override {
    throw kube::TransportError(kube::TransportError::Kind::Other, "no streams here");
  }

  // Replaces the stored lease as another writer would (under the lock when
  // called from a before_put hook).
  void put_locked(const std::string& holder, int duration, const std::string& renew, int transitions) {
    ++rv_;
    lease_ = std::make_unique<rapidjson::Document>(kube::parse_json(lease_json(std::to_string(rv_), holder, duration, renew, transitions)));
  }
  void put(const std::string& holder, int duration, const std::string& renew, int transitions) {
    std::lock_guard lock(mu_);
    put_locked(holder, duration, renew, transitions);
  }
  void before_next_put(std::function<void(FakeLeaseApi&)> hook) {
    std::lock_guard lock(mu_);
    before_put_ = std::move(hook);
  }
  void fail_with(int status) {
    std::lock_guard lock(mu_);
    fail_status_ = status;
  }
  std::optional<LeaseRecord> record() const {
    std::lock_guard lock(mu_);
    if (!lease_) return std::nullopt;
    return lease_record_from(*lease_);
  }
  std::vector<Write> writes() const {
    std::lock_guard lock(mu_);
    return writes_;
  }
  int conflicts() const {
    std::lock_guard lock(mu_);
    return conflicts_;
  }

 private:
  static kube::HttpResponse answer(int status, std::string body) {
    kube::HttpResponse resp;
    resp.status = status;
    resp.body = std::move(body);
    return resp;
  }
  kube::HttpResponse store(const std::string& body, int status) {
    auto doc = kube::parse_json(body);
    ++rv_;
    auto& a = doc.GetAllocator();
    doc["metadata"].RemoveMember("resourceVersion");
    doc["metadata"].AddMember("resourceVersion", rapidjson::Value(std::to_string(rv_).c_str(), a), a);
    lease_ = std::make_unique<rapidjson::Document>(std::move(doc));
    writes_.push_back({Clock::now(), lease_record_from(*lease_)});
    return answer(status, kube::to_json(*lease_));
  }

  mutable std::mutex mu_;
  std::unique_ptr<rapidjson::Document> lease_;
  int64_t rv_ = 100;
  int fail_status_ = 0;
  int conflicts_ = 0;
  std::function<void(FakeLeaseApi&)> before_put_;
  std::vector<std::string> methods_;
  std::vector<Write> writes_;
};

kube::RestConfig fake_rest() {
  kube::RestConfig c;
  c.server = "http://fake";
  c.qps = 0;
  return c;
}

// A moment set once by one thread and read by others.
class Stamp {
 public:
  void set() { ns_ = Clock::now().time_since_epoch().count(); }
  bool has_value() const { return ns_.load() != 0; }
  explicit operator bool() const { return has_value(); }
  Clock::time_point operator*() const { return Clock::time_point(Clock::duration(ns_.load())); }

 private:
  std::atomic<Clock::rep> ns_{0};
};

// One candidate running on its own thread, with everything its callbacks saw.
class Candidate {
 public:
  Candidate(const kube::RestConfig& rest, LeaderElectionConfig config, std::shared_ptr<kube::HttpTransport> transport = nullptr,
            bool throw_in_work = false) {
    LeaderCallbacks cb;
    cb.on_started_leading = [this, throw_in_work](std::stop_token leading) {
      started_at.set();
      working = true;
      if (throw_in_work) throw std::runtime_error("work failed");
      std::mutex m;
      std::condition_variable_any cv;
      std::unique_lock lock(m);
      cv.wait(lock, leading, [] { return false; });
      token_fired_at.set();
      std::this_thread::sleep_for(100ms);  // shutting work down takes a while
      work_returned_at.set();
      working = false;
    };
    cb.on_stopped_leading = [this] { stopped_leading_at.set(); };
    cb.on_new_leader = [this](const std::string& id) {
      std::lock_guard lock(mu);
      new_leaders.push_back(id);
    };
    cb.on_leader_status = [this](bool leading) {
      std::lock_guard lock(mu);
      statuses.push_back(leading);
    };
    elector = std::make_unique<LeaderElector>(rest, std::move(config), std::move(cb), std::move(transport));
    thread = std::thread([this] { outcome = elector->run(stop.get_token()); finished = true; });
  }
  ~Candidate() { shutdown(); }
  void shutdown() {
    stop.request_stop();
    if (thread.joinable()) thread.join();
  }
  std::vector<std::string> leaders() {
    std::lock_guard lock(mu);
    return new_leaders;
  }
  std::vector<bool> status_reports() {
    std::lock_guard lock(mu);
    return statuses;
  }

  std::unique_ptr<LeaderElector> elector;
  std::stop_source stop;
  std::thread thread;
  std::atomic<bool> working{false};
  std::atomic<bool> finished{false};
  std::optional<ElectionOutcome> outcome;  // read only once `finished` or after shutdown()
  Stamp started_at, token_fired_at, work_returned_at, stopped_leading_at;
  std::mutex mu;
  std::vector<std::string> new_leaders;
  std::vector<bool> statuses;
};

TEST(LeaderElectionConfig, RejectsUnsafeTimingsAndFillsIdentity) {
  LeaderCallbacks cb;
  cb.on_started_leading = [](std::stop_token) {};
  auto make = [&](LeaderElectionConfig c) { LeaderElector e(fake_rest(), std::move(c), cb); };
  EXPECT_NO_THROW(make(short_config("a")));
  auto c = short_config("a");
  c.renew_deadline = kLease;  // lease must be longer than the renew deadline
  EXPECT_THROW(make(c), std::invalid_argument);
  c = short_config("a");
  c.retry_period = 1300ms;  // renew deadline must exceed 1.2 * retry period
  EXPECT_THROW(make(c), std::invalid_argument);
  c = short_config("a");
  c.lease_duration = 2500ms;  // leaseDurationSeconds is whole seconds
  EXPECT_THROW(make(c), std::invalid_argument);
  c = short_config("a");
  c.lease_name.clear();
  EXPECT_THROW(make(c), std::invalid_argument);
  EXPECT_THROW(LeaderElector(fake_rest(), short_config("a"), LeaderCallbacks{}), std::invalid_argument);

  LeaderElector defaulted(fake_rest(), short_config(""), cb);
  EXPECT_TRUE(std::regex_match(defaulted.identity(),
                               std::regex(R"(.+_[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})")))
      << defaulted.identity();
  EXPECT_NE(default_leader_identity(), default_leader_identity());
}

TEST(LeaderElection, CreatesTheLeaseLeadsRenewsAndReleasesAfterWorkReturns) {
  auto api = std::make_shared<FakeLeaseApi>();
  Candidate a(fake_rest(), short_config("a"), api);
  ASSERT_TRUE(eventually([&] { return a.working.load(); }, 5s));
  EXPECT_TRUE(a.elector->is_leader());
  EXPECT_EQ(a.elector->leader(), "a");
  auto rec = api->record();
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->holder_identity, "a");
  EXPECT_EQ(rec->lease_duration_seconds, 2);
  EXPECT_EQ(rec->lease_transitions, 0);
  const std::regex micro(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)");
  EXPECT_TRUE(std::regex_match(rec->renew_time, micro)) << rec->renew_time;
  EXPECT_TRUE(std::regex_match(rec->acquire_time, micro)) << rec->acquire_time;

  // Renewals every retry period keep acquireTime and move renewTime.
  ASSERT_TRUE(eventually([&] { return api->writes().size() >= 4; }, 3s));
  auto renewed = api->record();
  EXPECT_EQ(renewed->acquire_time, rec->acquire_time);
  EXPECT_GT(renewed->renew_time, rec->renew_time);
  EXPECT_EQ(renewed->holder_identity, "a");

  const auto stop_at = Clock::now();
  a.shutdown();
  EXPECT_EQ(a.outcome, ElectionOutcome::Stopped);
  EXPECT_FALSE(a.elector->is_leader());
  ASSERT_TRUE(a.work_returned_at && a.stopped_leading_at);
  auto writes = api->writes();
  ASSERT_FALSE(writes.empty());
  const auto& last = writes.back();
  EXPECT_EQ(last.record.holder_identity, "");
  EXPECT_EQ(last.record.lease_duration_seconds, 1);
  EXPECT_EQ(last.record.lease_transitions, 0);
  // The release comes only after the leader's work returned.
  EXPECT_GT(last.at, *a.work_returned_at);
  EXPECT_GE(*a.work_returned_at - stop_at, 100ms);
  EXPECT_LE(*a.stopped_leading_at, Clock::now());
  EXPECT_EQ(a.leaders(), std::vector<std::string>{"a"});
  EXPECT_EQ(a.status_reports(), (std::vector<bool>{false, true, false}));
}

TEST(LeaderElection, TwoCandidatesOneLeaderThenTheStandbyTakesOverOnRelease) {
  auto api = std::make_shared<FakeLeaseApi>();
  Candidate a(fake_rest(), short_config("a"), api);
  ASSERT_TRUE(eventually([&] { return a.working.load(); }, 5s));
  Candidate b(fake_rest(), short_config("b"), api);
  // b sees a's lease and stays a standby for more than a lease duration.
  const auto until = Clock::now() + kLease + 500ms;
  while (Clock::now() < until) {
    ASSERT_FALSE(b.working.load()) << "two leaders";
    ASSERT_TRUE(a.working.load());
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(b.leaders(), std::vector<std::string>{"a"});
  EXPECT_FALSE(b.elector->is_leader());

  a.shutdown();
  const auto released = Clock::now();
  ASSERT_TRUE(eventually([&] { return b.working.load(); }, 3s));
  // One jittered retry of the standby at most.
  EXPECT_LE(*b.started_at - released, 2 * kRetry + kRetry / 5 + kSlack);
  auto rec = api->record();
  EXPECT_EQ(rec->holder_identity, "b");
  EXPECT_EQ(rec->lease_transitions, 1);
  EXPECT_EQ(rec->lease_duration_seconds, 2);
  EXPECT_EQ(b.leaders(), (std::vector<std::string>{"a", "b"}));
}

TEST(LeaderElection, ExpiryIsJudgedOnTheLocalClockFromFirstObservation) {
  auto api = std::make_shared<FakeLeaseApi>();
  // The holder's clock is far behind: its renewTime is in the past, but that
  // must not make the lease look expired.
  api->put("other", 2, "2001-01-01T00:00:00.000000Z", 4);
  const auto start = Clock::now();
  Candidate a(fake_rest(), short_config("a"), api);
  ASSERT_TRUE(eventually([&] { return a.working.load(); }, 6s));
  const auto waited = *a.started_at - start;
  EXPECT_GE(waited, kLease) << "took over before the lease expired locally";
  EXPECT_LE(waited, kLease + 2 * kRetry + kRetry / 5 + kSlack);
  auto rec = api->record();
  EXPECT_EQ(rec->holder_identity, "a");
  EXPECT_EQ(rec->lease_transitions, 5);
  EXPECT_NE(rec->acquire_time, "2001-01-01T00:00:00.000000Z");
  EXPECT_EQ(a.leaders(), (std::vector<std::string>{"other", "a"}));
}

TEST(LeaderElection, AConflictMeansSomeoneElseWon) {
  auto api = std::make_shared<FakeLeaseApi>();
  api->put("", 1, "2001-01-01T00:00:00.000000Z", 3);  // released: free to take
  // Between our read and our write, "other" takes the lease.
  api->before_next_put([](FakeLeaseApi& self) { self.put_locked("other", 2, "2001-01-01T00:00:01.000000Z", 4); });
  Candidate a(fake_rest(), short_config("a"), api);
  ASSERT_TRUE(eventually([&] { return api->conflicts() >= 1; }, 3s));
  // "other" keeps renewing, so "a" stays a standby.
  for (int i = 0; i < 8; ++i) {
    api->put("other", 2, "2001-01-01T00:00:0" + std::to_string(i + 2) + ".000000Z", 4);
    std::this_thread::sleep_for(250ms);
    ASSERT_FALSE(a.working.load());
  }
  EXPECT_EQ(api->record()->holder_identity, "other");
  EXPECT_EQ(a.elector->leader(), "other");
  a.shutdown();
  EXPECT_EQ(a.outcome, ElectionOutcome::Stopped);
  EXPECT_FALSE(a.stopped_leading_at) << "on_stopped_leading without having led";
  EXPECT_EQ(api->record()->holder_identity, "other") << "a standby must not release another's lease";
}

TEST(LeaderElection, AnExceptionFromTheWorkEndsLeadership) {
  auto api = std::make_shared<FakeLeaseApi>();
  Candidate a(fake_rest(), short_config("a"), api, /*throw_in_work=*/true);
  ASSERT_TRUE(eventually([&] { return a.finished.load(); }, 5s));
  EXPECT_EQ(a.outcome, ElectionOutcome::Lost);
  EXPECT_TRUE(a.stopped_leading_at);
  EXPECT_EQ(api->record()->holder_identity, "") << "released";
}

// Over real HTTP: the scripted server answers the create, renewals succeed
// until `fault` becomes the default answer.
class LeaderRenewalFault : public ::testing::Test {
 protected:
  kube::RestConfig rest() {
    kube::RestConfig c;
    c.server = server.url();
    c.qps = 0;
    return c;
  }
  void start_leading() {
    server.enqueue(test::status_step(404, "NotFound", "leases \"lock\" not found"));
    const std::string lease = lease_json("7", "a", 2, "2030-01-01T00:00:00.000000Z", 0);
    Step created = test::json_step(201, lease);
    created.method = "POST";
    server.enqueue(created);
    server.set_default(test::json_step(200, lease));
    candidate = std::make_unique<Candidate>(rest(), short_config("a"));
    ASSERT_TRUE(eventually([&] { return candidate->working.load(); }, 5s));
    // A few renewals succeed.
    ASSERT_TRUE(server.wait_for_requests(5, 5s));
  }
  // Leadership must end no later than retry + renew deadline after the last
  // success, which is before the lease could expire for anyone else.
  void expect_loss_in_time(Step fault) {
    const auto fault_at = Clock::now();
    server.set_default(fault);
    ASSERT_TRUE(eventually([&] { return candidate->token_fired_at.has_value(); }, 5s));
    const auto lost_after = *candidate->token_fired_at - fault_at;
    EXPECT_LE(lost_after, kRetry + kRenew + kSlack);
    EXPECT_LT(lost_after, std::chrono::milliseconds(kLease) + kSlack);
    EXPECT_FALSE(candidate->elector->is_leader());
    server.release();
    ASSERT_TRUE(eventually([&] { return candidate->finished.load(); }, 10s));
    EXPECT_EQ(candidate->outcome, ElectionOutcome::Lost);
    EXPECT_TRUE(candidate->stopped_leading_at);
    EXPECT_EQ(candidate->status_reports(), (std::vector<bool>{false, true, false}));
  }
  test::ScriptedServer server;
  std::unique_ptr<Candidate> candidate;
};

TEST_F(LeaderRenewalFault, ServerErrorsEndLeadershipWithinTheRenewDeadline) {
  start_leading();
  expect_loss_in_time(test::status_step(500, "InternalError", "etcd unavailable"));
}

TEST_F(LeaderRenewalFault, AHangingRenewalEndsLeadershipAtTheDeadlineNotAfterTheRequestTimeout) {
  start_leading();
  Step hang;
  hang.hang = true;
  expect_loss_in_time(hang);
}

}  // namespace
}  // namespace gpupool::runtime
