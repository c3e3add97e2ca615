// Leader election between real gpupool-controller processes: only the leader
// reconciles; after kill -9 a standby takes over within the lease duration;
// after SIGTERM the lease is released and a standby takes over in under 2 s.
//
// Timings are shortened for the test: lease 4 s, renew deadline 2.5 s, retry
// 0.5 s (the defaults are 15/10/2). Reconcile activity is read from each
// process's JSON log: every reconcile logs "node <name> ...".
#include <gtest/gtest.h>

#include <csignal>

#include "gpupool/testenv/process.h"
#include "support/cluster_fixture.h"
#include "support/json_log.h"
#include "support/kube_test_helpers.h"

namespace gpupool::test {
namespace {

using namespace std::chrono_literals;

constexpr int64_t kLeaseMs = 4000, kRetryMs = 500;

struct Candidate {
  std::string name;
  std::string log;
  testenv::Process proc;

  std::vector<LogLine> lines() const { return read_json_log(log); }
  int64_t became_leader_ms() const { return first_with(lines(), "became leader").ts_ms; }
  // Reconcile lines ("node kwok-node-...") with their times.
  std::vector<int64_t> reconciles() const {
    std::vector<int64_t> out;
    for (const auto& l : lines()) {
      if (l.msg.rfind("node kwok-node-", 0) == 0) out.push_back(l.ts_ms);
    }
    return out;
  }
};

class ControllerLeaderTest : public ClusterTest {
 protected:
  static void SetUpTestSuite() { install_gpupool_crds(shared_cluster()); }
  void SetUp() override {
    ClusterTest::SetUp();
    dir_ = make_temp_dir("leader");
    NodeSpec gpu;
    gpu.capacity = {{"nvidia.com/gpu", "8"}};
    nodes_ = create_kwok_nodes(cluster(), 2, gpu);
  }
  void TearDown() override {
    delete_nodes(cluster(), nodes_);
    remove_tree(dir_);
    ClusterTest::TearDown();
  }

  std::unique_ptr<Candidate> start(const std::string& name) {
    auto c = std::make_unique<Candidate>();
    c->name = name;
    c->log = dir_ + "/" + name + ".log";
    testenv::SpawnSpec spec;
    spec.path = GPUPOOL_CONTROLLER_BIN;
    spec.args = {"--kubeconfig", cluster().kubeconfig_path(), "--log-format=json", "--leader-elect",
                 "--leader-election-namespace", ns(), "--leader-elect-lease-duration=4",
                 "--leader-elect-renew-deadline=2.5", "--leader-elect-retry-period=0.5",
                 "--metrics-bind-address=0", "--health-probe-bind-address=0"};
    spec.log_file = c->log;
    c->proc = testenv::Process::spawn(spec);
    wait_for(30s, [&] { return any_with(c->lines(), "waiting to lead"); }, name + " started");
    return c;
  }

  std::string dir_;
  std::vector<std::string> nodes_;
};

TEST_F(ControllerLeaderTest, OnlyTheLeaderReconcilesAndStandbysTakeOver) {
  auto a = start("a");
  wait_for(30s, [&] { return a->became_leader_ms() > 0; }, "a leading");
  auto b = start("b");
  wait_for(30s, [&] { return a->reconciles().size() >= 2; }, "the leader reconciling both nodes");
  EXPECT_EQ(b->became_leader_ms(), 0) << "two leaders at once";
  EXPECT_TRUE(b->reconciles().empty()) << "a standby reconciled";

  // kill -9: no release; the standby waits for the lease to expire.
  int64_t killed_at = wall_ms();
  a->proc.signal(SIGKILL);
  ASSERT_TRUE(a->proc.wait_until(std::chrono::steady_clock::now() + 10s));
  wait_for(30s, [&] { return b->became_leader_ms() > 0; }, "b taking over after kill -9");
  int64_t takeover = b->became_leader_ms() - killed_at;
  EXPECT_LE(takeover, kLeaseMs + 2 * 22 * kRetryMs / 10 + 1000) << "takeover after kill -9 took " << takeover << " ms";
  wait_for(30s, [&] { return b->reconciles().size() >= 2; }, "b reconciling");
  for (int64_t t : a->reconciles()) EXPECT_LT(t, b->became_leader_ms()) << "a reconciled after b led";
  for (int64_t t : b->reconciles()) EXPECT_GE(t, b->became_leader_ms()) << "b reconciled before leading";

  // SIGTERM: the leader releases the lease on its way out.
  auto c = start("c");
  int64_t terminated_at = wall_ms();
  b->proc.signal(SIGTERM);
  ASSERT_TRUE(b->proc.wait_until(std::chrono::steady_clock::now() + 30s));
  EXPECT_EQ(b->proc.exit_status(), 0);
  wait_for(30s, [&] { return c->became_leader_ms() > 0; }, "c taking over after SIGTERM");
  int64_t handover = c->became_leader_ms() - terminated_at;
  EXPECT_LT(handover, 2000) << "handover after SIGTERM took " << handover << " ms";
  auto b_lines = b->lines();
  EXPECT_TRUE(any_with(b_lines, "stopped leading"));
  int64_t b_stopped = first_with(b_lines, "stopped leading").ts_ms;
  for (int64_t t : b->reconciles()) EXPECT_LE(t, b_stopped);
  EXPECT_LE(b_stopped, c->became_leader_ms()) << "c led before b had stopped";
  std::printf("takeover after kill -9: %lld ms; handover after SIGTERM: %lld ms\n", static_cast<long long>(takeover),
              static_cast<long long>(handover));
  c->proc.signal(SIGTERM);
  EXPECT_TRUE(c->proc.wait_until(std::chrono::steady_clock::now() + 30s));
}

}  // namespace
}  // namespace gpupool::test
