// `explain` (lib/explain/explain.h): the words for each state the controller
// and the agents report, and one line when all is well.
#include "gpupool/explain/explain.h"

#include <gtest/gtest.h>

#include "explain_fixtures.h"

namespace gpupool::explain {
namespace {

using namespace testing;

void expect_words(const std::string& text, const std::vector<std::string>& words,
                  const std::vector<std::string>& absent = {}) {
  for (const auto& w : words) EXPECT_NE(text.find(w), std::string::npos) << "missing \"" << w << "\" in:\n" << text;
  for (const auto& w : absent) EXPECT_EQ(text.find(w), std::string::npos) << "unexpected \"" << w << "\" in:\n" << text;
}

std::size_t lines(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

// ---------------------------------------------------------------------------

TEST(ExplainTarget, Syntaxes) {
  struct Case {
    std::vector<std::string> args;
    Kind kind;
    std::string ns, name;
  };
  const std::vector<Case> ok = {
      {{"pool", "a100"}, Kind::pool, "", "a100"},
      {{"GPUPool/a100"}, Kind::pool, "", "a100"},
      {{"gpool", "a100"}, Kind::pool, "", "a100"},
      {{"node", "kwok-0"}, Kind::node, "", "kwok-0"},
      {{"gpunodes/kwok-0"}, Kind::node, "", "kwok-0"},
      {{"tenantquota", "q1"}, Kind::tenantquota, "", "q1"},
      {{"tq", "team-a/q1"}, Kind::tenantquota, "team-a", "q1"},
      {{"tenantquota/team-a/q1"}, Kind::tenantquota, "team-a", "q1"},
      {{"tenantquotas.gpupool.io", "q1"}, Kind::tenantquota, "", "q1"},
  };
  for (const auto& c : ok) {
    auto r = parse_target(c.args);
    ASSERT_TRUE(std::holds_alternative<Target>(r)) << c.args[0] << ": " << std::get<std::string>(r);
    const auto& t = std::get<Target>(r);
    EXPECT_EQ(t.kind, c.kind) << c.args[0];
    EXPECT_EQ(t.ns, c.ns) << c.args[0];
    EXPECT_EQ(t.name, c.name) << c.args[0];
  }
  const std::vector<std::vector<std::string>> bad = {
      {}, {"pool"}, {"a100"}, {"pool", "a", "b"}, {"pool/"}, {"pod", "x"}, {"pool", "ns/a100"}, {"tq", "/q1"}, {"pool/a/b"},
  };
  for (const auto& args : bad) {
    auto r = parse_target(args);
    ASSERT_TRUE(std::holds_alternative<std::string>(r)) << (args.empty() ? "(none)" : args[0]);
  }
  EXPECT_NE(std::get<std::string>(parse_target({"pod", "x"})).find("unknown kind \"pod\""), std::string::npos);
}

// ---------------------------------------------------------------------------
// GPUPool

const std::string kCompleteNoConflict = cond("Ready", "True", "UpToDate", "all 2 member nodes match the spec") + "," +
                                        cond("Progressing", "False", "Complete", "all 2 member nodes match the spec") +
                                        "," + cond("Degraded", "False", "WithinBudget", "");
const std::string kComplete = kCompleteNoConflict + "," + cond("Conflict", "False", "NoConflict", "");
const std::string kRollout =
    R"("nodes":{"total":2,"ready":0,"updating":0,"failed":0},"rollout":{"targetVersion":"570.133.20","updated":0,"pending":2,"failed":0})";

struct PoolCase {
  const char* name;
  std::string pool;
  std::vector<std::string> gpunodes, nodes, events;
  std::vector<std::string> words;
  std::vector<std::string> absent = {};
};

TEST(ExplainPool, WhyNotProgressing) {
  const std::string waiting = cond("Ready", "False", "ChangesPending", "driver 550.54.15 -> 570.133.20");
  const std::vector<PoolCase> cases = {
      {"paused",
       pool("a100",
            cond("Ready", "False", "Paused", "spec.paused: no new node starts; 0 in progress finish") + "," +
                cond("Progressing", "False", "Paused", "spec.paused: no new node starts; 0 in progress finish"),
            kRollout, R"({"paused":true,"driver":{"version":"570.133.20"}})"),
       {gpunode("n1", "a100", waiting), gpunode("n2", "a100", waiting)},
       {},
       {event("GPUPool", "", "a100", "Normal", "RolloutPaused", "spec.paused: no new node starts", kNowMinus5m)},
       {"GPUPool a100 is not progressing: it is paused (spec.paused is true), so no new node starts.",
        "rollout: 0 of 2 nodes up to date, 2 waiting, 0 in progress, 0 failed (driver 570.133.20)",
        R"(`kubectl patch gpupool a100 --type=merge -p '{"spec":{"paused":false}}'`)",
        "Recent events (newest first):", "5m ago  Normal  RolloutPaused  spec.paused: no new node starts"}},
      {"failure budget",
       pool("a100",
            cond("Ready", "False", "FailureBudgetExceeded", "2 nodes failed, more than the failure budget of 1: n1, n2") +
                "," +
                cond("Degraded", "True", "FailureBudgetExceeded",
                     "2 nodes failed: n1 (InstallFailed: exit 1), n2 (InstallFailed: exit 1). No new node starts until "
                     "the pool's spec changes or a failure is cleared"),
            kRollout),
       {gpunode("n1", "a100", cond("Ready", "False", "InstallFailed", "Driver failed: installer exited 1"), true),
        gpunode("n2", "a100", cond("Ready", "False", "InstallFailed", "Driver failed: image not found"), true),
        gpunode("n3", "a100", waiting)},
       {node("n1", true, true, R"({"gpupool.io/pre-drain-unschedulable":"false"})"), node("n2"), node("n3")},
       {event("GPUPool", "", "a100", "Warning", "NodeFailed", "n1: InstallFailed", kNowMinus5m, 3),
        event("GPUPool", "", "a100", "Warning", "RolloutHalted", "failure budget exceeded", kNowMinus30s)},
       {"GPUPool a100 has stopped: more nodes failed than its failure budget allows, so no new node starts.",
        "failed: n1 (InstallFailed: Driver failed: installer exited 1); n2 (InstallFailed: Driver failed: image not found)",
        "kubectl annotate gpunode NODE gpupool.io/retry=true", "cordoned: n1 by its agent, kept cordoned after the failed change (spec.cordonOnFailure)",
        "30s ago  Warning  RolloutHalted", "5m ago  Warning  NodeFailed  n1: InstallFailed (x3)"},
       {"n3 (", "2 nodes failed: n1 (InstallFailed: exit 1)"}},
      {"failure budget, GPUNodes not readable",
       pool("a100",
            cond("Ready", "False", "FailureBudgetExceeded", "2 nodes failed, more than the failure budget of 1: n1, n2") +
                "," +
                cond("Degraded", "True", "FailureBudgetExceeded",
                     "2 nodes failed: n1 (InstallFailed: exit 1), n2 (InstallFailed: exit 1). No new node starts until "
                     "the pool's spec changes or a failure is cleared"),
            kRollout),
       {},
       {},
       {},
       {"GPUPool a100 has stopped", "2 nodes failed: n1 (InstallFailed: exit 1), n2 (InstallFailed: exit 1)."}},
      {"waiting for turn",
       pool("a100",
            cond("Ready", "False", "WaitingForTurn",
                 "1 of 2 nodes unavailable (maxUnavailable 1): n1; no agent heartbeat from n3"),
            kRollout),
       {gpunode("n1", "a100", cond("Ready", "True", "UpToDate", "ok")), gpunode("n2", "a100", waiting),
        R"({"kind":"GPUNode","metadata":{"name":"n3","generation":1},"spec":{"nodeName":"n3","pool":"a100"}})"},
       {node("n1", false), node("n2")},
       {},
       {"GPUPool a100 is rolling out; nodes wait for their turn: 1 of 2 nodes unavailable (maxUnavailable 1): n1; no "
        "agent heartbeat from n3.",
        "no report from the agent of n3", "Node not Ready: n1 (KubeletNotReady: container runtime is down)"}},
      {"outside window",
       pool("a100",
            cond("Ready", "False", "OutsideMaintenanceWindow",
                 "outside the maintenance windows; next window opens 2026-05-02T22:00:00Z"),
            kRollout),
       {},
       {},
       {},
       {"GPUPool a100 is waiting for a maintenance window: outside the maintenance windows; next window opens "
        "2026-05-02T22:00:00Z."}},
      {"rolling out",
       pool("a100", cond("Ready", "False", "RollingOut", "1 in progress (n1), 1 waiting, 0 of 2 up to date"), kRollout),
       {gpunode("n1", "a100", cond("Ready", "False", "Updating", "Drain: waiting for 2 pods (PodDisruptionBudget)"), true)},
       {},
       {},
       {"GPUPool a100 is rolling out: 1 in progress (n1), 1 waiting, 0 of 2 up to date.",
        "in progress: n1: Drain: waiting for 2 pods (PodDisruptionBudget)"}},
      {"no members",
       pool("a100", cond("Ready", "False", "NoMembers", "no node matches spec.nodeSelector"),
            R"("nodes":{"total":0,"ready":0})",
            R"({"nodeSelector":{"matchLabels":{"gpupool.io/gpu-model":"a100-sxm4-80gb"}}})"),
       {},
       {},
       {},
       {"GPUPool a100 has no member nodes: no node matches spec.nodeSelector.",
        R"(spec.nodeSelector: {"matchLabels":{"gpupool.io/gpu-model":"a100-sxm4-80gb"}})"}},
      {"no status",
       R"({"kind":"GPUPool","metadata":{"name":"a100","generation":1},"spec":{}})",
       {},
       {},
       {},
       {"GPUPool a100 has no status: the controller has not reconciled it yet. Is gpupool-controller running"}},
      {"ready but conflict and health held back",
       pool("a100",
            kCompleteNoConflict + "," + cond("Conflict", "True", "EqualPriority", "node n9 is also selected by b") + "," +
                cond("UnhealthyNodesHeldBack", "True", "MaxUnhealthyNodes", "1 of 2 nodes of pool a100 taken out"),
            R"("nodes":{"total":2,"ready":2})"),
       {gpunode("n1", "a100",
                cond("Ready", "True", "UpToDate", "ok") + "," + cond("Healthy", "False", "GPUUnhealthy", "GPU 1: XID 79"))},
       {node("n1", true, false, "{}", R"([{"key":"gpupool.io/gpu-unhealthy","effect":"NoSchedule"}])")},
       {},
       {"GPUPool a100 is ready: all 2 member nodes match the spec.", "conflict: node n9 is also selected by b",
        "GPU health: 1 of 2 nodes of pool a100 taken out", "unhealthy GPUs on n1 (GPU 1: XID 79)"}},
      {"complete but a node not ready",
       pool("a100", cond("Ready", "False", "Complete", "all 2 member nodes match the spec"),
            R"("nodes":{"total":2,"ready":1})"),
       {gpunode("n1", "a100", cond("Ready", "True", "UpToDate", "ok"))},
       {node("n1", false)},
       {},
       {"GPUPool a100 matches its spec on every node, but only 1 of 2 nodes are Ready.", "Node not Ready: n1"}},
      {"stale and monitoring",
       pool("a100",
            kComplete + "," +
                cond("MonitoringRolledOut", "False", "PrometheusOperatorMissing", "no ServiceMonitor API"),
            R"("nodes":{"total":2,"ready":2})", R"({})", 2),
       {},
       {},
       {},
       {"the controller has not acted on the latest spec yet (generation 2; the status is of generation 1)",
        "monitoring not rolled out (PrometheusOperatorMissing; this does not hold up the rollout): no ServiceMonitor API"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Docs d;
    PoolFacts f;
    f.pool = d(c.pool);
    for (const auto& g : c.gpunodes) f.gpunodes.push_back(d(g));
    for (const auto& n : c.nodes) f.nodes.push_back(d(n));
    for (const auto& e : c.events) f.events.push_back(d(e));
    f.now = now();
    expect_words(explain_pool(f), c.words, c.absent);
  }
}

TEST(ExplainPool, AllWellIsOneLine) {
  Docs d;
  PoolFacts f;
  f.pool = d(pool("a100", kComplete, R"("nodes":{"total":2,"ready":2})"));
  f.gpunodes = {d(gpunode("n1", "a100", cond("Ready", "True", "UpToDate", "ok")))};
  f.nodes = {d(node("n1"))};
  f.events = {d(event("GPUPool", "", "a100", "Normal", "NodeUpdated", "node n1 matches the spec", kNowMinus1h))};
  f.now = now();
  EXPECT_EQ(explain_pool(f), "GPUPool a100 is ready: all 2 member nodes match the spec.\n");
}

// ---------------------------------------------------------------------------
// GPUNode

struct NodeCase {
  const char* name;
  std::string gpunode;
  std::string node;   // empty: the Node does not exist
  std::string pool;   // empty: none
  std::string lease;  // empty: none (checked)
  bool lease_checked = true;
  std::vector<std::string> events;
  std::vector<std::string> words;
  std::vector<std::string> absent = {};
};

TEST(ExplainNode, WhyNotProgressing) {
  const std::string fresh_lease = lease("n1", "2026-05-01T11:59:50Z");
  const std::vector<NodeCase> cases = {
      {"waiting for permission",
       gpunode("n1", "a100", cond("Ready", "False", "ChangesPending", "driver 550.54.15 -> 570.133.20")),
       node("n1"),
       pool("a100", cond("Progressing", "False", "Paused", "spec.paused: no new node starts; 0 in progress finish")),
       fresh_lease,
       true,
       {},
       {"GPUNode n1 is waiting for permission: it needs changes (driver 550.54.15 -> 570.133.20) and the controller has "
        "not allowed them yet (spec.disruptionAllowed is false).",
        "GPUPool a100: Paused: spec.paused: no new node starts"}},
      {"draining",
       gpunode("n1", "a100", cond("Ready", "False", "Updating", "Drain: 1 pod blocked by a PodDisruptionBudget"), true,
               R"("operations":[{"type":"Drain","phase":"InProgress","reason":"PodDisruptionBudget","message":"team-a/web-0 blocked by PodDisruptionBudget web","lastTransitionTime":"2026-05-01T11:55:00Z"}])"),
       node("n1", true, true, R"({"gpupool.io/pre-drain-unschedulable":"false"})"),
       "",
       fresh_lease,
       true,
       {},
       {"GPUNode n1 is being changed: Drain: 1 pod blocked by a PodDisruptionBudget.",
        "in progress: Drain PodDisruptionBudget: team-a/web-0 blocked by PodDisruptionBudget web (since 5m ago)",
        "cordoned by its agent, draining it"}},
      {"failed",
       gpunode("n1", "a100", cond("Ready", "False", "InstallFailed", "Driver failed: installer exited 1"), true,
               R"("operations":[{"type":"Driver","phase":"Failed","reason":"InstallFailed","message":"installer exited 1","lastTransitionTime":"2026-05-01T11:00:00Z"}])"),
       node("n1"),
       "",
       fresh_lease,
       true,
       {event("GPUNode", "", "n1", "Warning", "UpdateFailed", "GPUPool a100: InstallFailed", kNowMinus5m)},
       {"GPUNode n1 failed: InstallFailed: Driver failed: installer exited 1.",
        "failed operation: Driver InstallFailed: installer exited 1 (since 60m ago)",
        "`kubectl annotate gpunode n1 gpupool.io/retry=true`",
        "5m ago  Warning  UpdateFailed  gpunode/n1  GPUPool a100: InstallFailed"}},
      {"no lease",
       gpunode("n1", "a100", cond("Ready", "True", "UpToDate", "2 GPUs match the spec")),
       node("n1"),
       "",
       "",
       true,
       {},
       {"GPUNode n1 is not progressing: there is no agent Lease gpupool-agent-n1 in namespace gpupool-system: its "
        "agent is not running",
        "its agent's last report: Ready"}},
      {"lease expired",
       gpunode("n1", "a100", cond("Ready", "False", "ChangesPending", "driver 550.54.15 -> 570.133.20")),
       node("n1"),
       "",
       lease("n1", kNowMinus5m, 40),
       true,
       {},
       {"GPUNode n1 is not progressing: its agent's Lease gpupool-agent-n1 was last renewed 5m ago (lease duration 40s)",
        "its agent's last report: Waiting (waiting for permission"}},
      {"unhealthy and tainted",
       gpunode("n1", "a100",
               cond("Ready", "True", "UpToDate", "2 GPUs match the spec") + "," +
                   cond("Healthy", "False", "GPUUnhealthy", "GPU 1: XID 79 at 2026-05-01T11:00:00Z: GPU has fallen off the bus"),
               false,
               R"("x":1)"),
       node("n1", true, false, "{}", R"([{"key":"gpupool.io/gpu-unhealthy","effect":"NoSchedule"},{"key":"dedicated","value":"ml","effect":"NoSchedule"}])"),
       "",
       fresh_lease,
       true,
       {},
       {"GPUNode n1 is ready: 2 GPUs match the spec.", "unhealthy GPUs: GPU 1: XID 79",
        "taints: gpupool.io/gpu-unhealthy:NoSchedule (by the controller for GPU health), dedicated=ml:NoSchedule"}},
      {"cordoned by an administrator",
       gpunode("n1", "a100", cond("Ready", "True", "UpToDate", "2 GPUs match the spec")),
       node("n1", true, true, "{}", R"([{"key":"node.kubernetes.io/unschedulable","effect":"NoSchedule"}])"),
       "",
       fresh_lease,
       true,
       {},
       {"GPUNode n1 is ready", "cordoned by someone else (an administrator?); the rollout counts it as unavailable"},
       {"taints:"}},
      {"in no pool, conflict",
       gpunode("n1", "", cond("Ready", "True", "UpToDate", "2 GPUs match the spec")),
       node("n1", true, false, "{}", "[]", R"({"gpupool.io/pool-conflict":"a_b"})"),
       "",
       fresh_lease,
       true,
       {},
       {"in no GPUPool: pools a, b select it at the same priority"}},
      {"no report, no node",
       R"({"kind":"GPUNode","metadata":{"name":"n1","generation":1},"spec":{"nodeName":"n1","pool":"a100"}})",
       "",
       "",
       "",
       false,
       {},
       {"GPUNode n1 has no report from its agent: is gpupool-agent running on node n1?", "the Node n1 does not exist"}},
      {"old heartbeat without the lease",
       [] {
         std::string g = gpunode("n1", "a100", cond("Ready", "True", "UpToDate", "2 GPUs match the spec"));
         g.replace(g.find("2026-05-01T11:59:30Z"), 20, kNowMinus1h);
         return g;
       }(),
       node("n1"),
       "",
       "",
       false,
       {},
       {"its agent last reported 60m ago"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Docs d;
    NodeFacts f;
    f.gpunode = d(c.gpunode);
    f.node = c.node.empty() ? nullptr : d(c.node);
    f.pool = c.pool.empty() ? nullptr : d(c.pool);
    f.lease = c.lease.empty() ? nullptr : d(c.lease);
    f.lease_checked = c.lease_checked;
    for (const auto& e : c.events) f.events.push_back(d(e));
    f.now = now();
    expect_words(explain_node(f), c.words, c.absent);
  }
}

TEST(ExplainNode, AllWellIsOneLine) {
  Docs d;
  NodeFacts f;
  f.gpunode = d(gpunode("n1", "a100", cond("Ready", "True", "UpToDate", "2 GPUs match the spec") + "," +
                                          cond("Healthy", "True", "AllHealthy", "")));
  f.node = d(node("n1"));
  f.lease = d(lease("n1", "2026-05-01T11:59:50Z"));
  f.lease_checked = true;
  f.now = now();
  EXPECT_EQ(explain_node(f), "GPUNode n1 is ready: 2 GPUs match the spec.\n");
}

// ---------------------------------------------------------------------------
// TenantQuota

struct QuotaCase {
  const char* name;
  std::string quota;
  std::vector<std::string> pods, events;
  std::vector<std::string> words;
  std::vector<std::string> absent = {};
};

TEST(ExplainTenantQuota, WhyNotProgressing) {
  const std::vector<QuotaCase> cases = {
      {"waiting for approval",
       quota("team-a", "train",
             R"({"phase":"Pending","conditions":[)" +
                 cond("Granted", "False", "WaitingForApproval", "waiting for an administrator: `gpupoolctl approve team-a/train`") +
                 "]}"),
       {},
       {},
       {"TenantQuota team-a/train waits for an administrator's approval (the GPUPolicy of GPUPool a100 has approval: "
        "Manual): waiting for an administrator: `gpupoolctl approve team-a/train`",
        "an administrator approves it with `kubectl gpupool approve team-a/train`", "asked for 4 nvidia.com/gpu; granted nothing"}},
      {"rejected",
       quota("team-a", "train",
             R"({"phase":"Rejected","conditions":[)" +
                 cond("Granted", "False", "Rejected", "namespace team-a may not request quota from pool a100") + "]}"),
       {},
       {},
       {"TenantQuota team-a/train is rejected: namespace team-a may not request quota from pool a100."}},
      {"expired",
       quota("team-a", "train",
             R"({"phase":"Expired","conditions":[)" + cond("Granted", "False", "Expired", "expired; running pods are kept") + "]}",
             R"(,"expiresAt":"2026-05-01T11:00:00Z")"),
       {},
       {},
       {"TenantQuota team-a/train has expired (spec.expiresAt 2026-05-01T11:00:00Z): expired; running pods are kept."},
       {"expires in"}},
      {"capacity reduced, pods waiting",
       quota("team-a", "train",
             R"({"phase":"PartiallyGranted","granted":{"nvidia.com/gpu":"2"},"used":{"nvidia.com/gpu":"2"},"waiting":{"nvidia.com/gpu":"3"},"conditions":[)" +
                 cond("Granted", "False", "PartiallyGranted", "granted 2 of 4 nvidia.com/gpu: pool quota has 0 unreserved") + "," +
                 cond("CapacityReduced", "True", "CapacityFell", "the pool's capacity fell below the grants") + "]}"),
       {gated_pod("team-a", "job-1", kNowMinus5m), gated_pod("team-a", "job-0", kNowMinus1h),
        R"({"kind":"Pod","metadata":{"name":"running","namespace":"team-a"},"spec":{"containers":[]}})"},
       {event("Pod", "team-a", "job-1", "Normal", "WaitingForQuota",
              "waiting at the gate gpupool.io/quota: needs 2 nvidia.com/gpu, TenantQuota team-a/train uses 2 of 2",
              kNowMinus30s),
        event("Pod", "team-a", "job-1", "Normal", "WaitingForQuota", "waiting at the gate gpupool.io/quota: older", kNowMinus5m)},
       {"TenantQuota team-a/train is only partly granted: granted 2 of 4 nvidia.com/gpu: pool quota has 0 unreserved.",
        "asked for 4 nvidia.com/gpu; granted 2 nvidia.com/gpu",
        "capacity reduced: the pool's capacity fell below the grants",
        "pods held at the quota gate ask for 3 nvidia.com/gpu; in use now: 2 nvidia.com/gpu",
        "  - pod team-a/job-0 (waiting 60m)\n  - pod team-a/job-1 (waiting 5m): needs 2 nvidia.com/gpu, TenantQuota "
        "team-a/train uses 2 of 2\n"},
       {"running", "older"}},
      {"waiting for capacity",
       quota("team-a", "train",
             R"({"phase":"Pending","conditions":[)" +
                 cond("Granted", "False", "WaitingForCapacity", "granted 0 of 4 nvidia.com/gpu: pool quota has 0 unreserved") + "]}"),
       {},
       {event("TenantQuota", "team-a", "train", "Warning", "Something", "a note", kNowMinus5m)},
       {"TenantQuota team-a/train waits for capacity in GPUPool a100: granted 0 of 4 nvidia.com/gpu",
        "5m ago  Warning  Something  a note"}},
      {"pool not found",
       quota("team-a", "train",
             R"({"phase":"Pending","conditions":[)" + cond("Granted", "False", "PoolNotFound", "GPUPool a100 not found") + "]}"),
       {},
       {},
       {"TenantQuota team-a/train waits for its GPUPool a100, which does not exist"}},
      {"granted but the grant is in use",
       quota("team-a", "train",
             R"({"phase":"Granted","granted":{"nvidia.com/gpu":"4"},"used":{"nvidia.com/gpu":"4"},"waiting":{"nvidia.com/gpu":"1"},"conditions":[)" +
                 cond("Granted", "True", "Granted", "granted 4 of 4 nvidia.com/gpu") + "]}"),
       {gated_pod("team-a", "extra", kNowMinus30s)},
       {},
       {"TenantQuota team-a/train is granted: 4 nvidia.com/gpu from GPUPool a100 (in use: 4 nvidia.com/gpu).",
        "pods held at the quota gate ask for 1 nvidia.com/gpu", "pod team-a/extra (waiting 30s)"}},
      {"no status", quota("team-a", "train", ""), {}, {}, {"TenantQuota team-a/train has no status"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Docs d;
    QuotaFacts f;
    f.quota = d(c.quota);
    for (const auto& p : c.pods) f.pods.push_back(d(p));
    for (const auto& e : c.events) f.events.push_back(d(e));
    f.now = now();
    f.program = "kubectl gpupool";
    expect_words(explain_tenantquota(f), c.words, c.absent);
  }
}

TEST(ExplainTenantQuota, AllWellIsOneLine) {
  Docs d;
  QuotaFacts f;
  f.quota = d(quota("team-a", "train",
                    R"({"observedGeneration":1,"phase":"Granted","granted":{"nvidia.com/gpu":"4"},"used":{"nvidia.com/gpu":"1"},"conditions":[)" +
                        cond("Granted", "True", "Granted", "granted 4 of 4 nvidia.com/gpu") + "]}",
                    R"(,"expiresAt":"2026-05-01T15:00:00Z")"));
  f.now = now();
  const std::string text = explain_tenantquota(f);
  EXPECT_EQ(text,
            "TenantQuota team-a/train is granted: 4 nvidia.com/gpu from GPUPool a100 (in use: 1 nvidia.com/gpu). It "
            "expires in 3h (spec.expiresAt 2026-05-01T15:00:00Z).\n");
  EXPECT_EQ(lines(text), 1u);
}

}  // namespace
}  // namespace gpupool::explain
