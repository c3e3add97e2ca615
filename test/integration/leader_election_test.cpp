// Leader election between real processes (test/tools/leader_candidate.cpp)
// on a real Lease. Each candidate appends "<identity> start|tick|stop <ms>"
// lines (CLOCK_MONOTONIC) to one shared activity file while it leads; the
// tests read who led when from it.
//
// Timings: SHORT ones, not the 15/10/2 s defaults: lease 5 s, renew deadline
// 3 s, retry period 0.5 s, so the kill -9 failover takes ~5-7 s instead of
// ~15-20 s. Same rules apply, scaled.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "gpupool/kube/client.h"
#include "gpupool/runtime/leader_election.h"
#include "gpupool/testenv/process.h"
#include "support/cluster_fixture.h"
#include "support/kube_test_helpers.h"

namespace gpupool::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr long long kLeaseMs = 5000;
constexpr long long kRenewMs = 3000;
constexpr long long kRetryMs = 500;
// A standby polls every retry * [1, 2.2). After a kill it needs one poll to
// see the last renewal (up to 2.2 retries late), the lease duration from
// there, and one more poll to notice the expiry.
constexpr long long kMaxPollGapMs = kRetryMs * 22 / 10;
constexpr long long kRequestSlackMs = 1000;

long long monotonic_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch()).count();
}

struct Line {
  std::string identity;
  std::string what;  // start, tick, stop
  long long ms = 0;
};

std::vector<Line> read_activity(const std::string& path) {
  std::vector<Line> lines;
  std::ifstream in(path);
  for (std::string text; std::getline(in, text);) {
    std::istringstream fields(text);
    Line l;
    if (fields >> l.identity >> l.what >> l.ms) lines.push_back(l);
  }
  return lines;
}

std::optional<Line> first(const std::vector<Line>& lines, const std::string& identity, const std::string& what) {
  for (const auto& l : lines) {
    if ((identity.empty() || l.identity == identity) && l.what == what) return l;
  }
  return std::nullopt;
}

int count(const std::vector<Line>& lines, const std::string& identity, const std::string& what) {
  int n = 0;
  for (const auto& l : lines) n += (l.identity == identity && l.what == what) ? 1 : 0;
  return n;
}

// One leadership term: from "start" to "stop", or to the last tick when the
// process died without writing "stop".
struct Term {
  std::string identity;
  long long begin = 0;
  long long end = 0;
};

std::vector<Term> terms_of(const std::vector<Line>& lines) {
  std::vector<Term> terms;
  std::map<std::string, std::size_t> open;  // identity -> index in terms
  for (const auto& l : lines) {
    if (l.what == "start") {
      open[l.identity] = terms.size();
      terms.push_back({l.identity, l.ms, l.ms});
    } else if (auto it = open.find(l.identity); it != open.end()) {
      terms[it->second].end = l.ms;
      if (l.what == "stop") open.erase(it);
    } else {
      ADD_FAILURE() << l.identity << " " << l.what << " outside a term";
    }
  }
  return terms;
}

// No two identities were ever active at the same time.
void expect_no_overlap(const std::vector<Line>& lines) {
  auto terms = terms_of(lines);
  for (std::size_t i = 0; i < terms.size(); ++i) {
    for (std::size_t j = i + 1; j < terms.size(); ++j) {
      const auto& a = terms[i];
      const auto& b = terms[j];
      if (a.identity == b.identity) continue;
      EXPECT_TRUE(a.end < b.begin || b.end < a.begin)
          << "overlapping leaders: " << a.identity << " [" << a.begin << ", " << a.end << "] and " << b.identity << " ["
          << b.begin << ", " << b.end << "]";
    }
  }
}

class LeaderElectionTest : public ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    dir_ = make_temp_dir("leader");
    activity_ = dir_ + "/activity";
  }
  void TearDown() override {
    candidates_.clear();  // kills any still running
    remove_tree(dir_);
    ClusterTest::TearDown();
  }

  testenv::Process& spawn(const std::string& identity) {
    testenv::SpawnSpec spec;
    spec.path = GPUPOOL_LEADER_CANDIDATE_BIN;
    spec.args = {"--kubeconfig", cluster().kubeconfig_path(), "--identity", identity, "--activity-file", activity_,
                 "--lease-namespace", ns(), "--lease-name", "gpupool-leader",
                 "--lease-duration-ms", std::to_string(kLeaseMs), "--renew-deadline-ms", std::to_string(kRenewMs),
                 "--retry-period-ms", std::to_string(kRetryMs)};
    spec.log_file = dir_ + "/" + identity + ".log";
    return candidates_[identity] = testenv::Process::spawn(spec);
  }

  std::string log_of(const std::string& identity) {
    std::ifstream in(dir_ + "/" + identity + ".log");
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  runtime::LeaseRecord lease() {
    kube::Client client(rest_config(cluster(), cluster().admin_token()));
    auto doc = client.get({{"coordination.k8s.io", "v1", "leases"}, ns(), "gpupool-leader", ""});
    return runtime::lease_record_from(doc);
  }

  // Waits for the first leader and returns its identity.
  std::string wait_for_leader() {
    std::string leader;
    wait_for(60s, [&] {
      auto start = first(read_activity(activity_), "", "start");
      if (start) leader = start->identity;
      return start.has_value();
    }, "a leader's start line");
    return leader;
  }

  void wait_for_ticks(const std::string& identity, int n) {
    wait_for(30s, [&] { return count(read_activity(activity_), identity, "tick") >= n; },
             std::to_string(n) + " ticks of " + identity);
  }

  std::string dir_;
  std::string activity_;
  std::map<std::string, testenv::Process> candidates_;
};

TEST_F(LeaderElectionTest, KillNineFailsOverAfterTheLeaseExpiresWithoutOverlap) {
  spawn("cand-a");
  spawn("cand-b");
  const std::string leader = wait_for_leader();
  const std::string standby = leader == "cand-a" ? "cand-b" : "cand-a";
  wait_for_ticks(leader, 15);  // 1.5 s: several renewals

  auto lines = read_activity(activity_);
  EXPECT_FALSE(first(lines, standby, "start")) << "two leaders";
  auto before = lease();
  EXPECT_EQ(before.holder_identity, leader);
  EXPECT_EQ(before.lease_transitions, 0);
  EXPECT_EQ(before.lease_duration_seconds, kLeaseMs / 1000);

  const long long killed_at = monotonic_ms();
  candidates_[leader].signal(SIGKILL);
  ASSERT_TRUE(candidates_[leader].wait_until(Clock::now() + 10s));

  wait_for(std::chrono::milliseconds(kLeaseMs + 2 * kMaxPollGapMs + 10000),
           [&] { return first(read_activity(activity_), standby, "start").has_value(); }, "the standby to take over");
  lines = read_activity(activity_);
  const long long took_over_at = first(lines, standby, "start")->ms;
  const long long takeover = took_over_at - killed_at;
  std::cout << "[ MEASURED ] takeover after kill -9: " << takeover << " ms (lease " << kLeaseMs << " ms, retry "
            << kRetryMs << " ms)\n";
  RecordProperty("takeover_after_kill_ms", std::to_string(takeover));
  EXPECT_LE(takeover, kLeaseMs + 2 * kMaxPollGapMs + kRequestSlackMs);
  // Not before the lease could have expired: the last renewal was at most
  // one retry period (plus a request) before the kill.
  EXPECT_GE(takeover, kLeaseMs - 2 * kRetryMs);

  wait_for_ticks(standby, 5);
  lines = read_activity(activity_);
  expect_no_overlap(lines);
  long long last_of_killed = 0;
  for (const auto& l : lines) {
    if (l.identity == leader) last_of_killed = l.ms;
  }
  EXPECT_LE(last_of_killed, killed_at);
  EXPECT_EQ(count(lines, leader, "start"), 1);
  EXPECT_EQ(count(lines, standby, "start"), 1);

  auto after = lease();
  EXPECT_EQ(after.holder_identity, standby);
  EXPECT_EQ(after.lease_transitions, 1);
  EXPECT_EQ(candidates_[standby].terminate(10s), 0) << log_of(standby);
}

TEST_F(LeaderElectionTest, SigtermReleasesTheLeaseAndTheStandbyTakesOverAtOnce) {
  spawn("cand-a");
  spawn("cand-b");
  const std::string leader = wait_for_leader();
  const std::string standby = leader == "cand-a" ? "cand-b" : "cand-a";
  wait_for_ticks(leader, 10);
  // The standby has seen the lease (its log names the leader).
  wait_for(30s, [&] { return log_of(standby).find("leader is now " + leader) != std::string::npos; },
           "the standby to observe the leader");

  const long long signalled_at = monotonic_ms();
  candidates_[leader].signal(SIGTERM);
  wait_for(10s, [&] { return first(read_activity(activity_), standby, "start").has_value(); },
           "the standby to take over");
  ASSERT_TRUE(candidates_[leader].wait_until(Clock::now() + 10s));
  EXPECT_EQ(candidates_[leader].exit_status(), 0) << log_of(leader);

  auto lines = read_activity(activity_);
  const long long handover = first(lines, standby, "start")->ms - signalled_at;
  std::cout << "[ MEASURED ] takeover after SIGTERM: " << handover << " ms (retry " << kRetryMs << " ms)\n";
  RecordProperty("takeover_after_sigterm_ms", std::to_string(handover));
  EXPECT_LT(handover, 2000);
  auto stop = first(lines, leader, "stop");
  ASSERT_TRUE(stop) << "the leader's work did not end cleanly";
  EXPECT_LT(stop->ms, first(lines, standby, "start")->ms);
  EXPECT_NE(log_of(leader).find("released the lease"), std::string::npos) << log_of(leader);

  wait_for_ticks(standby, 3);
  expect_no_overlap(read_activity(activity_));
  auto after = lease();
  EXPECT_EQ(after.holder_identity, standby);
  EXPECT_EQ(after.lease_transitions, 1);
  EXPECT_EQ(after.lease_duration_seconds, kLeaseMs / 1000);
}

TEST_F(LeaderElectionTest, TheLeaseRecordsHolderRenewalsReleaseAndTransitions) {
  spawn("cand-a");
  ASSERT_EQ(wait_for_leader(), "cand-a");
  const std::regex micro(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)");
  auto held = lease();
  EXPECT_EQ(held.holder_identity, "cand-a");
  EXPECT_EQ(held.lease_duration_seconds, 5);
  EXPECT_EQ(held.lease_transitions, 0);
  EXPECT_TRUE(std::regex_match(held.acquire_time, micro)) << held.acquire_time;
  EXPECT_TRUE(std::regex_match(held.renew_time, micro)) << held.renew_time;

  runtime::LeaseRecord renewed;
  wait_for(10s, [&] {
    renewed = lease();
    return renewed.renew_time != held.renew_time;
  }, "a renewal");
  EXPECT_EQ(renewed.holder_identity, "cand-a");
  EXPECT_EQ(renewed.acquire_time, held.acquire_time);
  EXPECT_GT(renewed.renew_time, held.renew_time);

  EXPECT_EQ(candidates_["cand-a"].terminate(10s), 0) << log_of("cand-a");
  auto released = lease();
  EXPECT_EQ(released.holder_identity, "");
  EXPECT_EQ(released.lease_duration_seconds, 1);
  EXPECT_EQ(released.lease_transitions, 0);

  // A new candidate takes a released lease at once, counting a transition.
  spawn("cand-b");
  wait_for(10s, [&] { return first(read_activity(activity_), "cand-b", "start").has_value(); }, "cand-b to lead");
  auto taken = lease();
  EXPECT_EQ(taken.holder_identity, "cand-b");
  EXPECT_EQ(taken.lease_transitions, 1);
  EXPECT_NE(taken.acquire_time, held.acquire_time);
  EXPECT_EQ(candidates_["cand-b"].terminate(10s), 0) << log_of("cand-b");
}

}  // namespace
}  // namespace gpupool::test
