// plan_drain: each rule both ways, ordering, done() and summary().
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpupool/node/drain_plan.h"

namespace gpupool::node {
namespace {

const std::string kNoController = "has no controller (use force to evict it; it will not be recreated)";
const std::string kEmptyDir = "uses emptyDir volumes (set deleteEmptyDirData)";

// A running GPU pod with a (ReplicaSet) controller: evicted by default.
PodFacts gpu_pod(const std::string& ns, const std::string& name) {
  PodFacts p;
  p.ns = ns;
  p.name = name;
  p.uid = "uid-" + name;
  p.uses_gpu = true;
  p.gpu_resources = {"nvidia.com/gpu"};
  p.has_controller = true;
  return p;
}

api::DrainOptions options(bool force, bool delete_empty_dir_data) {
  api::DrainOptions o;
  o.force = force;
  o.delete_empty_dir_data = delete_empty_dir_data;
  return o;
}

enum class Outcome { ignored, evicted, waited, blocked };

std::string outcome_name(Outcome o) {
  switch (o) {
    case Outcome::ignored: return "ignored";
    case Outcome::evicted: return "evicted";
    case Outcome::waited: return "waited for";
    case Outcome::blocked: return "blocked";
  }
  return "?";
}

// What the plan does with a lone pod, and the reason given where it gives one.
std::pair<Outcome, std::string> outcome(const PodFacts& p, const api::DrainOptions& o) {
  const DrainPlan plan = plan_drain({p}, o);
  const std::size_t listed = plan.evict.size() + plan.wait_for.size() + plan.blocked.size();
  EXPECT_LE(listed, 1U);
  if (!plan.evict.empty()) return {Outcome::evicted, ""};
  if (!plan.wait_for.empty()) return {Outcome::waited, plan.wait_for[0].reason};
  if (!plan.blocked.empty()) return {Outcome::blocked, plan.blocked[0].reason};
  EXPECT_TRUE(plan.done());
  return {Outcome::ignored, ""};
}

TEST(DrainPlanRules, OnePodEachWay) {
  struct Case {
    const char* what;
    PodFacts pod;
    api::DrainOptions opts;
    Outcome want;
    std::string reason;
  };
  auto with = [](auto change) {
    PodFacts p = gpu_pod("ns", "p");
    change(p);
    return p;
  };
  const auto none = options(false, false);
  const auto force = options(true, false);
  const auto empty_dir = options(false, true);
  const auto both = options(true, true);
  api::DrainOptions custom_label;
  custom_label.skip_pod_label = "team.example/no-drain";

  const std::vector<Case> cases = {
      {"controlled GPU pod", gpu_pod("ns", "p"), none, Outcome::evicted, ""},
      {"non-GPU pod", with([](PodFacts& p) { p.uses_gpu = false, p.gpu_resources.clear(); }), none, Outcome::ignored,
       ""},
      {"non-GPU pod, no controller, emptyDir", with([](PodFacts& p) {
         p.uses_gpu = false, p.gpu_resources.clear(), p.has_controller = false, p.uses_empty_dir = true;
       }),
       none, Outcome::ignored, ""},
      {"non-GPU pod with force", with([](PodFacts& p) { p.uses_gpu = false, p.has_controller = false; }), both,
       Outcome::ignored, ""},
      // force (unreplicatedFilter)
      {"no controller, no force", with([](PodFacts& p) { p.has_controller = false; }), none, Outcome::blocked,
       kNoController},
      {"no controller, force", with([](PodFacts& p) { p.has_controller = false; }), force, Outcome::evicted, ""},
      {"no controller, deleteEmptyDirData only", with([](PodFacts& p) { p.has_controller = false; }), empty_dir,
       Outcome::blocked, kNoController},
      // deleteEmptyDirData (localStorageFilter)
      {"emptyDir, no deleteEmptyDirData", with([](PodFacts& p) { p.uses_empty_dir = true; }), none, Outcome::blocked,
       kEmptyDir},
      {"emptyDir, deleteEmptyDirData", with([](PodFacts& p) { p.uses_empty_dir = true; }), empty_dir,
       Outcome::evicted, ""},
      {"emptyDir, force only", with([](PodFacts& p) { p.uses_empty_dir = true; }), force, Outcome::blocked, kEmptyDir},
      // both: kubectl's filter order, localStorage before unreplicated
      {"emptyDir and no controller, neither option",
       with([](PodFacts& p) { p.uses_empty_dir = true, p.has_controller = false; }), none, Outcome::blocked,
       kEmptyDir},
      {"emptyDir and no controller, deleteEmptyDirData",
       with([](PodFacts& p) { p.uses_empty_dir = true, p.has_controller = false; }), empty_dir, Outcome::blocked,
       kNoController},
      {"emptyDir and no controller, both options",
       with([](PodFacts& p) { p.uses_empty_dir = true, p.has_controller = false; }), both, Outcome::evicted, ""},
      // skip label
      {"skip label true", with([](PodFacts& p) { p.skip = true; }), none, Outcome::waited,
       "gpupool.io/skip-drain=true"},
      {"skip label true, force", with([](PodFacts& p) { p.skip = true; }), both, Outcome::waited,
       "gpupool.io/skip-drain=true"},
      {"skip label true, no controller", with([](PodFacts& p) { p.skip = true, p.has_controller = false; }), none,
       Outcome::waited, "gpupool.io/skip-drain=true"},
      {"skip label custom key", with([](PodFacts& p) { p.skip = true; }), custom_label, Outcome::waited,
       "team.example/no-drain=true"},
      {"skip label not true", gpu_pod("ns", "p"), none, Outcome::evicted, ""},
      // DaemonSet and mirror pods (daemonSetFilter with --ignore-daemonsets, mirrorPodFilter)
      {"DaemonSet pod", with([](PodFacts& p) { p.daemonset = true; }), none, Outcome::ignored, ""},
      {"DaemonSet pod, force", with([](PodFacts& p) { p.daemonset = true; }), both, Outcome::ignored, ""},
      {"DaemonSet pod with emptyDir", with([](PodFacts& p) { p.daemonset = true, p.uses_empty_dir = true; }), none,
       Outcome::ignored, ""},
      {"mirror pod", with([](PodFacts& p) { p.mirror = true, p.has_controller = false; }), none, Outcome::ignored, ""},
      {"mirror pod, force", with([](PodFacts& p) { p.mirror = true, p.has_controller = false; }), both,
       Outcome::ignored, ""},
      // finished pods
      {"finished pod", with([](PodFacts& p) { p.finished = true; }), none, Outcome::ignored, ""},
      {"finished pod, no controller, emptyDir",
       with([](PodFacts& p) { p.finished = true, p.has_controller = false, p.uses_empty_dir = true; }), none,
       Outcome::ignored, ""},
      {"finished and skip-labelled", with([](PodFacts& p) { p.finished = true, p.skip = true; }), none,
       Outcome::ignored, ""},
      // terminating pods
      {"terminating pod", with([](PodFacts& p) { p.terminating = true; }), none, Outcome::waited, "terminating"},
      {"terminating pod, no controller, emptyDir",
       with([](PodFacts& p) { p.terminating = true, p.has_controller = false, p.uses_empty_dir = true; }), none,
       Outcome::waited, "terminating"},
      {"terminating and skip-labelled", with([](PodFacts& p) { p.terminating = true, p.skip = true; }), none,
       Outcome::waited, "terminating"},
      {"terminating DaemonSet pod", with([](PodFacts& p) { p.terminating = true, p.daemonset = true; }), none,
       Outcome::ignored, ""},
  };
  for (const auto& c : cases) {
    const auto [got, reason] = outcome(c.pod, c.opts);
    EXPECT_EQ(outcome_name(got), outcome_name(c.want)) << c.what;
    EXPECT_EQ(reason, c.reason) << c.what;
  }
}

TEST(DrainPlanRules, RefsCarryIdentityAndListsAreSortedByKey) {
  std::vector<PodFacts> pods = {gpu_pod("team-b", "x"), gpu_pod("team-a", "y"), gpu_pod("team-a", "b")};
  PodFacts w1 = gpu_pod("z", "w"), w2 = gpu_pod("a", "w");
  w1.skip = true;
  w2.terminating = true;
  PodFacts b1 = gpu_pod("m", "b"), b2 = gpu_pod("c", "b");
  b1.has_controller = false;
  b2.uses_empty_dir = true;
  pods.insert(pods.end(), {w1, b1, w2, b2});

  const DrainPlan plan = plan_drain(pods, api::DrainOptions{});
  EXPECT_EQ(plan.evict, (std::vector<PodRef>{{"team-a", "b", "uid-b"}, {"team-a", "y", "uid-y"}, {"team-b", "x", "uid-x"}}));
  EXPECT_EQ(plan.wait_for, (std::vector<WaitingPod>{{{"a", "w", "uid-w"}, "terminating"},
                                                    {{"z", "w", "uid-w"}, "gpupool.io/skip-drain=true"}}));
  EXPECT_EQ(plan.blocked,
            (std::vector<BlockedPod>{{{"c", "b", "uid-b"}, kEmptyDir}, {{"m", "b", "uid-b"}, kNoController}}));
  EXPECT_FALSE(plan.done());
}

TEST(DrainPlanDone, OnlyWhenNothingIsLeft) {
  EXPECT_TRUE(plan_drain({}, api::DrainOptions{}).done());
  PodFacts cpu = gpu_pod("ns", "cpu");
  cpu.uses_gpu = false;
  EXPECT_TRUE(plan_drain({cpu}, api::DrainOptions{}).done());
  EXPECT_FALSE(plan_drain({gpu_pod("ns", "p")}, api::DrainOptions{}).done());
  DrainPlan waiting;
  waiting.wait_for.push_back({{"ns", "p", "u"}, "terminating"});
  EXPECT_FALSE(waiting.done());
  DrainPlan blocked;
  blocked.blocked.push_back({{"ns", "p", "u"}, kNoController});
  EXPECT_FALSE(blocked.done());
}

TEST(DrainPlanRef, Key) { EXPECT_EQ((PodRef{"team-a", "train-0", "u"}).key(), "team-a/train-0"); }

TEST(DrainPlanSummary, Text) {
  PodFacts skipped = gpu_pod("team-a", "train-0");
  skipped.skip = true;
  PodFacts bare = gpu_pod("default", "bare");
  bare.has_controller = false;
  PodFacts scratch = gpu_pod("default", "scratch");
  scratch.uses_empty_dir = true;
  PodFacts going = gpu_pod("team-b", "old");
  going.terminating = true;

  struct Case {
    const char* what;
    std::vector<PodFacts> pods;
    std::string want;
  };
  const std::vector<Case> cases = {
      {"nothing", {}, "no GPU pods to drain"},
      {"one to evict", {gpu_pod("a", "1")}, "evicting 1 pod"},
      {"the example",
       {gpu_pod("a", "1"), bare, skipped, gpu_pod("a", "2")},
       "evicting 2 pods; waiting for team-a/train-0 (gpupool.io/skip-drain=true); blocked: default/bare (" +
           kNoController + ")"},
      {"waiting only", {going, skipped},
       "waiting for team-a/train-0 (gpupool.io/skip-drain=true), team-b/old (terminating)"},
      {"blocked only", {scratch, bare},
       "blocked: default/bare (" + kNoController + "), default/scratch (" + kEmptyDir + ")"},
  };
  for (const auto& c : cases) EXPECT_EQ(plan_drain(c.pods, api::DrainOptions{}).summary(), c.want) << c.what;
}

TEST(DrainPlanSummary, NamesAtMostFivePerPart) {
  std::vector<PodFacts> pods;
  for (int i = 1; i <= 7; ++i) {
    PodFacts p = gpu_pod("ns", "p" + std::to_string(i));
    p.terminating = true;
    pods.push_back(p);
  }
  EXPECT_EQ(plan_drain(pods, api::DrainOptions{}).summary(),
            "waiting for ns/p1 (terminating), ns/p2 (terminating), ns/p3 (terminating), ns/p4 (terminating), "
            "ns/p5 (terminating) and 2 more");
}

}  // namespace
}  // namespace gpupool::node
