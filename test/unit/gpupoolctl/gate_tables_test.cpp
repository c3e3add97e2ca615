// The demo screen's additions (lib/explain/gate_tables.h): pods held at the
// quota gate, and whether the fleet has settled.
#include "gpupool/explain/gate_tables.h"

#include <gtest/gtest.h>

#include "explain_fixtures.h"

namespace gpupool::explain {
namespace {

using namespace testing;

// A gated pod whose one or two containers ask for `resources` (JSON of resources).
std::string pod_asking(const std::string& name, const std::string& created, const std::string& first,
                       const std::string& second = "", bool gated = true) {
  std::string containers = R"({"name":"a","resources":)" + first + "}";
  if (!second.empty()) containers += R"(,{"name":"b","resources":)" + second + "}";
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","namespace":"team-a","creationTimestamp":")" + created + R"("},"spec":{)" +
         (gated ? R"("schedulingGates":[{"name":"other"},{"name":"gpupool.io/quota"}],)" : "") + R"("containers":[)" +
         containers + "]}}";
}

TEST(GateTables, GatedPodsOldestFirstWithTheirGpuRequests) {
  Docs d;
  const auto* young = d(pod_asking("young", kNowMinus30s, R"({"limits":{"nvidia.com/gpu":"2","cpu":"4"}})",
                                   R"({"limits":{"nvidia.com/gpu":"1"}})"));
  const auto* old = d(pod_asking("old", kNowMinus1h, R"({"requests":{"nvidia.com/mig-1g.10gb":"1","memory":"1Gi"}})"));
  const auto* mixed = d(pod_asking("mixed", kNowMinus5m, R"({"requests":{"amd.com/gpu":"1"},"limits":{"amd.com/gpu":"2"}})",
                                   R"({"limits":{"amd.com/gpu":"500m"}})"));
  const auto* running = d(pod_asking("running", kNowMinus1h, R"({"limits":{"nvidia.com/gpu":"1"}})", "", false));
  const auto* no_gpu = d(pod_asking("cpu-only", kNowMinus5m, R"({"limits":{"cpu":"1"}})"));
  const std::vector<const rapidjson::Value*> pods = {young, old, mixed, running, no_gpu, nullptr};

  const auto* older_note = d(event("Pod", "team-a", "old", "Normal", "WaitingForQuota",
                                   "waiting at the gate gpupool.io/quota: quota team-a/q is full", kNowMinus1h));
  const auto* newer_note = d(event("Pod", "team-a", "old", "Normal", "WaitingForQuota",
                                   "waiting at the gate gpupool.io/quota: pool a100 has no mig-1g.10gb free", kNowMinus5m));
  const auto* other_reason = d(event("Pod", "team-a", "young", "Normal", "Scheduled", "assigned", kNowMinus30s));
  const auto* other_kind = d(event("TenantQuota", "team-a", "young", "Normal", "WaitingForQuota", "x", kNowMinus30s));

  const Table t = gated_pods_table(pods, {newer_note, other_reason, older_note, other_kind, nullptr}, now());
  EXPECT_EQ(t.header, (std::vector<std::string>{"NAMESPACE", "NAME", "REQUESTS", "WAITING", "REASON"}));
  ASSERT_EQ(t.rows.size(), 4u);
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{"team-a", "old", "nvidia.com/mig-1g.10gb=1", "60m",
                                                 "pool a100 has no mig-1g.10gb free"}));
  // Equally old: by namespace/name.
  EXPECT_EQ(t.rows[1][1], "cpu-only");
  EXPECT_EQ(t.rows[1][2], "-");
  EXPECT_EQ(t.rows[2][1], "mixed");
  EXPECT_EQ(t.rows[2][2], "amd.com/gpu=2+500m") << "limits win over requests; a fraction is not summed";
  EXPECT_EQ(t.rows[3][1], "young");
  EXPECT_EQ(t.rows[3][2], "nvidia.com/gpu=3");
  EXPECT_EQ(t.rows[3][3], "30s");
  EXPECT_EQ(t.rows[3][4], "-") << "no WaitingForQuota Event about it yet";
  EXPECT_EQ(gated_pod_count(pods), 4u);
}

const std::string kReadyPool = cond("Ready", "True", "UpToDate", "");
const std::string kTwoReady = R"("nodes":{"total":2,"ready":2,"updating":0,"failed":0})";

TEST(GateTables, SettledOnlyWhenEveryPoolAndQuotaSaysSo) {
  struct Row {
    const char* what;
    std::vector<std::string> pools, quotas;
    std::vector<std::string> waiting_on;  // empty: settled
  };
  const std::string granted = R"({"conditions":[)" + cond("Granted", "True", "Granted", "") + "]}";
  const std::string partial = R"({"conditions":[)" + cond("Granted", "False", "PartiallyGranted", "") + "]}";
  const Row rows[] = {
      {"nothing yet", {}, {}, {"no GPUPools yet"}},
      {"a ready pool and a granted quota", {pool("a100", kReadyPool, kTwoReady)}, {quota("team-a", "q", granted)}, {}},
      {"a pool without status", {pool("a100", "")}, {}, {"GPUPool a100: no status yet"}},
      {"a pool rolling out",
       {pool("a100", cond("Ready", "False", "RollingOut", ""), R"("nodes":{"total":2,"ready":1,"updating":1,"failed":0})")},
       {},
       {"GPUPool a100: RollingOut (1/2 nodes ready)"}},
      {"a ready pool without members", {pool("a100", kReadyPool, R"("nodes":{"total":0,"ready":0})")}, {}, {"GPUPool a100: no member nodes"}},
      {"a ready pool with a failed node",
       {pool("a100", kReadyPool, R"("nodes":{"total":2,"ready":1,"updating":0,"failed":1})")},
       {},
       {"GPUPool a100: 1/2 nodes ready, 1 failed"}},
      {"a quota partly granted, one without status",
       {pool("a100", kReadyPool, kTwoReady)},
       {quota("team-b", "q", partial), quota("team-a", "q", "")},
       {"TenantQuota team-a/q: no grant yet", "TenantQuota team-b/q: PartiallyGranted"}},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.what);
    Docs d;
    std::vector<const rapidjson::Value*> pools, quotas;
    for (const auto& p : row.pools) pools.push_back(d(p));
    for (const auto& q : row.quotas) quotas.push_back(d(q));
    const Settled s = settled(pools, quotas);
    EXPECT_EQ(s.settled, row.waiting_on.empty());
    EXPECT_EQ(s.waiting_on, row.waiting_on);
  }
}

TEST(GateTables, AReadyConditionOfAnOlderGenerationIsNotSettled) {
  Docs d;
  const Settled s = settled({d(pool("a100", kReadyPool, kTwoReady, R"({})", 3))}, {});
  EXPECT_FALSE(s.settled);
  ASSERT_EQ(s.waiting_on.size(), 1u);
  EXPECT_EQ(s.waiting_on[0].rfind("GPUPool a100: UpToDate", 0), 0u) << s.waiting_on[0];
}

TEST(GateTables, WaitingOnIsCutAtMax) {
  Docs d;
  std::vector<const rapidjson::Value*> quotas;
  for (int i = 0; i < 6; ++i) quotas.push_back(d(quota("team-" + std::to_string(i), "q", "")));
  const Settled s = settled({d(pool("a100", kReadyPool, kTwoReady))}, quotas, 3);
  EXPECT_FALSE(s.settled);
  EXPECT_EQ(s.waiting_on, (std::vector<std::string>{"TenantQuota team-0/q: no grant yet", "TenantQuota team-1/q: no grant yet",
                                                   "and 4 more"}));
}

}  // namespace
}  // namespace gpupool::explain
