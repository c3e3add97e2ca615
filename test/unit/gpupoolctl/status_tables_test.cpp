// `status` tables (lib/explain/status_tables.h): what each column shows for
// the objects the controller and the agents write.
#include "gpupool/explain/status_tables.h"

#include <gtest/gtest.h>

#include "explain_fixtures.h"

namespace gpupool::explain {
namespace {

using namespace testing;

std::string column(const Table& t, std::size_t row, const std::string& header) {
  for (std::size_t i = 0; i < t.header.size(); ++i) {
    if (t.header[i] == header) return t.rows.at(row).at(i);
  }
  ADD_FAILURE() << "no column " << header;
  return "";
}

const std::string kReadyNoConflict = cond("Ready", "True", "UpToDate", "all 2 member nodes match the spec") + "," +
                                     cond("Progressing", "False", "Complete", "all 2 member nodes match the spec") + "," +
                                     cond("Degraded", "False", "WithinBudget", "");
const std::string kReady = kReadyNoConflict + "," + cond("Conflict", "False", "NoConflict", "");
const std::string kCounts =
    R"("nodes":{"total":2,"ready":2,"updating":0,"failed":0,"conflicted":0},"capacity":{"nvidia.com/gpu":"4","nvidia.com/mig-1g.10gb":14},)"
    R"("rollout":{"targetVersion":"570.133.20","updated":2,"pending":0,"failed":0,"paused":false})";

TEST(StatusTables, RenderAlignsColumnsLikeKubectlGet) {
  Table t{{"NAME", "NODES", "REASON"}, {{"a100", "2/2", ""}, {"h100-long-name", "0/1", "Paused: spec.paused"}}};
  EXPECT_EQ(render(t),
            "NAME             NODES   REASON\n"
            "a100             2/2\n"
            "h100-long-name   0/1     Paused: spec.paused\n");
}

TEST(StatusTables, PoolRows) {
  Docs d;
  const auto* ready = d(pool("a100", kReady, kCounts));
  const auto* paused = d(pool("paused",
                              cond("Ready", "False", "Paused", "spec.paused: no new node starts; 0 in progress finish") +
                                  "," + cond("Progressing", "False", "Paused", "spec.paused: no new node starts"),
                              R"("nodes":{"total":2,"ready":0,"updating":0,"failed":0},"rollout":{"updated":0,"pending":2})"));
  const auto* fresh = d(R"({"kind":"GPUPool","metadata":{"name":"new","generation":1},"spec":{}})");
  const auto* conflict = d(pool("conflicted", kReadyNoConflict + "," + cond("Conflict", "True", "EqualPriority", "node n1 is also selected by other"), kCounts));
  const Table t = pools_table({paused, ready, fresh, conflict});
  ASSERT_EQ(t.rows.size(), 4u);
  EXPECT_EQ(t.header, (std::vector<std::string>{"NAME", "NODES", "UPDATING", "FAILED", "DRIVER", "CAPACITY", "ROLLOUT", "REASON"}));
  // Sorted by name.
  EXPECT_EQ(column(t, 0, "NAME"), "a100");
  EXPECT_EQ(column(t, 0, "NODES"), "2/2");
  EXPECT_EQ(column(t, 0, "DRIVER"), "570.133.20");
  EXPECT_EQ(column(t, 0, "CAPACITY"), "nvidia.com/gpu=4,nvidia.com/mig-1g.10gb=14");
  EXPECT_EQ(column(t, 0, "ROLLOUT"), "2/2 Complete");
  EXPECT_EQ(column(t, 0, "REASON"), "");

  EXPECT_EQ(column(t, 1, "NAME"), "conflicted");
  EXPECT_EQ(column(t, 1, "REASON"), "EqualPriority: node n1 is also selected by other");

  EXPECT_EQ(column(t, 2, "NAME"), "new");
  EXPECT_EQ(column(t, 2, "NODES"), "-");
  EXPECT_EQ(column(t, 2, "ROLLOUT"), "-");
  EXPECT_EQ(column(t, 2, "REASON"), "NoStatus: the controller has not written a status (is it running?)");

  EXPECT_EQ(column(t, 3, "NAME"), "paused");
  EXPECT_EQ(column(t, 3, "NODES"), "0/2");
  EXPECT_EQ(column(t, 3, "ROLLOUT"), "0/2 Paused");
  EXPECT_EQ(column(t, 3, "REASON"), "Paused: spec.paused: no new node starts; 0 in progress finish");
}

TEST(StatusTables, LongReasonsAreCut) {
  Docs d;
  const std::string long_message(300, 'x');
  const Table t = pools_table({d(pool("p", cond("Ready", "False", "FailureBudgetExceeded", long_message)))});
  const std::string reason = column(t, 0, "REASON");
  EXPECT_EQ(reason.size(), kReasonWidth);
  EXPECT_EQ(reason.substr(0, 23), "FailureBudgetExceeded: ");
  EXPECT_EQ(reason.substr(reason.size() - 3), "...");
}

struct NodeCase {
  const char* name;
  std::string conditions;
  bool allowed;
  std::string state, reason_start;
  int generation = 1, observed = 1;
};

TEST(StatusTables, NodeStatesFromTheAgentsConditions) {
  const std::vector<NodeCase> cases = {
      {"ready", cond("Ready", "True", "UpToDate", "2 GPUs match the spec"), false, "Ready", ""},
      {"waiting", cond("Ready", "False", "ChangesPending", "driver 550.54.15 -> 570.133.20"), false, "Waiting",
       "waiting for permission (spec.disruptionAllowed false): driver 550.54.15 -> 570.133.20"},
      {"starting", cond("Ready", "False", "ChangesPending", "driver 550.54.15 -> 570.133.20"), true, "Starting",
       "allowed to change, starting: driver"},
      {"updating", cond("Ready", "False", "Updating", "Drain: evicting 3 pods"), true, "Updating", "Drain: evicting 3 pods"},
      {"failed", cond("Ready", "False", "InstallFailed", "Driver failed: exit 1"), true, "Failed",
       "InstallFailed: Driver failed: exit 1"},
      {"backend", cond("Ready", "False", "BackendError", "the GPUs cannot be read: NVML_ERROR_UNINITIALIZED"), false,
       "Error", "BackendError: the GPUs cannot be read"},
      {"stale", cond("Ready", "True", "UpToDate", "2 GPUs match the spec"), false, "Pending",
       "the agent has not acted on generation 3 yet (reports 2)", 3, 2},
      {"unhealthy",
       cond("Ready", "True", "UpToDate", "2 GPUs match the spec") + "," +
           cond("Healthy", "False", "GPUUnhealthy", "GPU 1: XID 79 at 2026-05-01T11:00:00Z: GPU has fallen off the bus"),
       false, "Ready,Unhealthy", "GPUUnhealthy: GPU 1: XID 79"},
      {"noready", "", false, "Unknown", "the agent has written no Ready condition"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Docs d;
    const Table t = nodes_table({d(gpunode(c.name, "a100", c.conditions, c.allowed, "", "", c.generation, c.observed))}, now());
    EXPECT_EQ(column(t, 0, "STATE"), c.state);
    EXPECT_EQ(column(t, 0, "REASON").substr(0, c.reason_start.size()), c.reason_start);
    if (c.reason_start.empty()) {
      EXPECT_EQ(column(t, 0, "REASON"), "");
    }
  }
}

TEST(StatusTables, NodeColumns) {
  Docs d;
  const auto* mig = d(gpunode("n1", "a100", cond("Ready", "True", "UpToDate", "ok"), false, "",
                              R"(,"partitioning":{"mig":[{"index":0,"enabled":true,"instances":[{"profile":"3g.40gb"},{"profile":"3g.40gb"}]},)"
                              R"({"index":1,"enabled":true,"instances":[{"profile":"3g.40gb"},{"profile":"3g.40gb"}]}]},)"
                              R"("sharing":{"mode":"timeSlicing","timeSlicing":{"replicas":4}})"));
  const auto* mixed = d(gpunode("n2", "", cond("Ready", "True", "UpToDate", "ok"), false, "",
                                R"(,"partitioning":{"mig":[{"index":0,"enabled":true,"instances":[{"profile":"1g.10gb"}]},)"
                                R"({"index":1,"enabled":false}]})"));
  const auto* silent = d(R"({"kind":"GPUNode","metadata":{"name":"n3","generation":1},"spec":{"nodeName":"n3","pool":"a100"}})");
  const Table t = nodes_table({silent, mixed, mig}, now());
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.header, (std::vector<std::string>{"NAME", "POOL", "GPUS", "DRIVER", "LAYOUT", "STATE", "HEARTBEAT", "REASON"}));
  EXPECT_EQ(column(t, 0, "NAME"), "n1");
  EXPECT_EQ(column(t, 0, "GPUS"), "2x a100-sxm4-80gb");
  EXPECT_EQ(column(t, 0, "DRIVER"), "550.54.15->570.133.20");
  EXPECT_EQ(column(t, 0, "LAYOUT"), "mig 3g.40gb=2 (x2) timeSlicing/4");
  EXPECT_EQ(column(t, 0, "HEARTBEAT"), "30s");
  EXPECT_EQ(column(t, 1, "POOL"), "-");
  EXPECT_EQ(column(t, 1, "LAYOUT"), "mig 0:1g.10gb=1 1:off");
  EXPECT_EQ(column(t, 1, "REASON"), "in no GPUPool");
  EXPECT_EQ(column(t, 2, "GPUS"), "-");
  EXPECT_EQ(column(t, 2, "STATE"), "NoReport");
  EXPECT_EQ(column(t, 2, "HEARTBEAT"), "-");
  EXPECT_EQ(column(t, 2, "REASON"), "NoStatus: its agent has not reported");
}

TEST(StatusTables, HeartbeatAgesAsKubectlPrintsThem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"2026-05-01T11:59:15Z", "45s"},  {"2026-05-01T11:58:01Z", "119s"}, {"2026-05-01T11:54:30Z", "5m30s"},
      {"2026-05-01T11:55:00Z", "5m"},   {"2026-05-01T11:13:00Z", "47m"},  {"2026-05-01T08:40:00Z", "3h20m"},
      {"2026-04-30T06:00:00Z", "30h"},  {"2026-04-27T08:00:00Z", "4d4h"}, {"2026-04-01T12:00:00Z", "30d"},
      {"2026-05-01T12:00:10Z", "0s"},  // a clock ahead of ours
  };
  for (const auto& [time, want] : cases) {
    Docs d;
    std::string json = gpunode("n", "p", cond("Ready", "True", "UpToDate", "ok"));
    json.replace(json.find("2026-05-01T11:59:30Z"), 20, time);
    EXPECT_EQ(column(nodes_table({d(json)}, now()), 0, "HEARTBEAT"), want) << time;
  }
}

TEST(StatusTables, QuotaRows) {
  Docs d;
  const auto* granted = d(quota("team-a", "train",
                                R"({"phase":"Granted","granted":{"nvidia.com/gpu":"4"},"used":{"nvidia.com/gpu":"3"},)"
                                R"("waiting":{"nvidia.com/gpu":"2"},"conditions":[)" +
                                    cond("Granted", "True", "Granted", "granted 4 of 4 nvidia.com/gpu") + "]}"));
  const auto* approval = d(quota("team-b", "infer",
                                 R"({"phase":"Pending","conditions":[)" +
                                     cond("Granted", "False", "WaitingForApproval",
                                          "waiting for an administrator: `gpupoolctl approve team-b/infer`") +
                                     "]}",
                                 R"(,"borrowingLimit":{"nvidia.com/gpu":2})"));
  const auto* reduced = d(quota("team-a", "cut",
                                R"({"phase":"PartiallyGranted","granted":{"nvidia.com/gpu":2},"borrowed":{"nvidia.com/gpu":1},"conditions":[)" +
                                    cond("Granted", "False", "PartiallyGranted", "granted 2 of 4 nvidia.com/gpu: pool quota has 0 unreserved") + "," +
                                    cond("CapacityReduced", "True", "CapacityFell", "the pool's capacity fell below the grants") + "]}"));
  const auto* fresh = d(quota("team-a", "fresh", ""));
  const Table t = quotas_table({granted, approval, reduced, fresh}, true);
  EXPECT_EQ(t.header, (std::vector<std::string>{"NAMESPACE", "NAME", "POOL", "PHASE", "RESOURCES", "GRANTED", "USED",
                                                "WAITING", "BORROWED", "REASON"}));
  ASSERT_EQ(t.rows.size(), 4u);
  // Sorted by namespace/name.
  EXPECT_EQ(column(t, 0, "NAME"), "cut");
  EXPECT_EQ(column(t, 0, "GRANTED"), "2/4");
  EXPECT_EQ(column(t, 0, "BORROWED"), "1");
  EXPECT_EQ(column(t, 0, "REASON"),
            "PartiallyGranted: granted 2 of 4 nvidia.com/gpu: pool quota has 0 unreserved; CapacityF...");
  EXPECT_EQ(column(t, 1, "NAME"), "fresh");
  EXPECT_EQ(column(t, 1, "PHASE"), "-");
  EXPECT_EQ(column(t, 1, "REASON"), "NoStatus: the controller has not written a status (is it running?)");
  EXPECT_EQ(column(t, 2, "NAME"), "train");
  EXPECT_EQ(column(t, 2, "POOL"), "a100");
  EXPECT_EQ(column(t, 2, "PHASE"), "Granted");
  EXPECT_EQ(column(t, 2, "RESOURCES"), "nvidia.com/gpu");
  EXPECT_EQ(column(t, 2, "GRANTED"), "4/4");
  EXPECT_EQ(column(t, 2, "USED"), "3");
  EXPECT_EQ(column(t, 2, "WAITING"), "2");
  EXPECT_EQ(column(t, 2, "REASON"), "");
  EXPECT_EQ(column(t, 3, "NAMESPACE"), "team-b");
  EXPECT_EQ(column(t, 3, "GRANTED"), "0/4");
  EXPECT_EQ(column(t, 3, "REASON"), "WaitingForApproval: waiting for an administrator: `gpupoolctl approve team-b/infer`");

  EXPECT_EQ(quotas_table({granted}, false).header.front(), "NAME");
}

TEST(StatusTables, EmptyClusterSaysSo) {
  StatusInput in;
  in.quota_namespace = "default";
  in.now = now();
  const std::string out = format_status(in);
  EXPECT_NE(out.find("No GPUPools found"), std::string::npos) << out;
  EXPECT_NE(out.find("No GPUNodes found"), std::string::npos) << out;
  EXPECT_NE(out.find("No TenantQuotas in namespace default (-A for all namespaces)."), std::string::npos) << out;
}

TEST(StatusTables, WholeOutput) {
  Docs d;
  StatusInput in;
  in.pools.objects = {d(pool("a100", kReady, kCounts))};
  in.nodes.objects = {d(gpunode("kwok-0", "a100", cond("Ready", "False", "ChangesPending", "driver 550.54.15 -> 570.133.20")))};
  in.quotas.error = "forbidden: tenantquotas.gpupool.io is forbidden";
  in.now = now();
  EXPECT_EQ(format_status(in),
            "GPUPOOLS\n"
            "NAME   NODES   UPDATING   FAILED   DRIVER       CAPACITY                                     ROLLOUT        REASON\n"
            "a100   2/2     0          0        570.133.20   nvidia.com/gpu=4,nvidia.com/mig-1g.10gb=14   2/2 Complete\n"
            "\n"
            "GPUNODES\n"
            "NAME     POOL   GPUS                DRIVER                  LAYOUT   STATE     HEARTBEAT   REASON\n"
            "kwok-0   a100   2x a100-sxm4-80gb   550.54.15->570.133.20   -        Waiting   30s         waiting for "
            "permission (spec.disruptionAllowed false): driver 550.54.15 -> 570.133.20\n"
            "\n"
            "TENANTQUOTAS (all namespaces)\n"
            "  cannot list TenantQuotas: forbidden: tenantquotas.gpupool.io is forbidden\n");
}

}  // namespace
}  // namespace gpupool::explain
