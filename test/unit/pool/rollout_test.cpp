// decide_rollout and resolve_max_unavailable, as tables.
#include <gtest/gtest.h>

#include <set>

#include "gpupool/pool/rollout.h"

namespace gpupool::pool {
namespace {

using Names = std::vector<std::string>;

// Node shorthand: state letters. p = pending (needs the change), u = up to
// date, g = granted and in progress, d = granted and done (up to date), f =
// failed (keeps permission), r = failed with retry requested.
RolloutNode n(const std::string& name, char state) {
  RolloutNode x;
  x.name = name;
  x.up_to_date = state == 'u' || state == 'd';
  x.granted = state == 'g' || state == 'd' || state == 'f' || state == 'r';
  x.failed = state == 'f' || state == 'r';
  x.retry_requested = state == 'r';
  return x;
}
RolloutNode cordoned(RolloutNode x) { x.cordoned = true; return x; }
RolloutNode agent_cordoned(RolloutNode x) { x.cordoned = x.agent_cordoned = true; return x; }
// The agent's status says it holds the node cordoned; the controller's view
// of the Node is older than that cordon (not unschedulable yet).
RolloutNode held_by_status(RolloutNode x) { x.agent_cordoned = true; return x; }
RolloutNode not_ready(RolloutNode x) { x.ready = false; return x; }
RolloutNode no_agent(RolloutNode x) { x.agent_alive = false; return x; }
RolloutNode unreported(RolloutNode x) { x.reported = false; return x; }
// A new spec was written over its permission; its agent has not seen it.
RolloutNode withdrawal_unseen(RolloutNode x) { x.withdrawal_unseen = true; x.reported = false; return x; }
RolloutNode key(RolloutNode x, std::string k) { x.order_key = std::move(k); return x; }
RolloutNode unlabelled(RolloutNode x) { x.lacks_order_label = true; return x; }

RolloutSettings settings(int max_unavailable, int failure_budget = 1) {
  RolloutSettings s;
  s.max_unavailable = max_unavailable;
  s.failure_budget = failure_budget;
  return s;
}

struct Case {
  std::string name;
  std::vector<RolloutNode> nodes;
  RolloutSettings settings;
  Names grant, withdraw, unavailable;
  std::string waiting_contains;  // "" = nothing waits
};

TEST(DecideRollout, Table) {
  auto paused = settings(2);
  paused.paused = true;
  auto closed = settings(2);
  closed.window_open = false;
  closed.window_message = "outside the maintenance windows; the next opens Sat 01:00 UTC";
  const std::vector<Case> cases = {
      {"nothing to do", {n("a", 'u'), n("b", 'u')}, settings(1), {}, {}, {}, ""},
      {"first wave in name order", {n("c", 'p'), n("a", 'p'), n("b", 'p')}, settings(2), {"a", "b"}, {}, {"a", "b"},
       "2 of 3 nodes unavailable (maxUnavailable 2): a, b"},
      {"in progress fills the budget", {n("a", 'g'), n("b", 'g'), n("c", 'p')}, settings(2), {}, {}, {"a", "b"}, "maxUnavailable 2"},
      {"a finished node frees its slot in the same decision", {n("a", 'd'), n("b", 'g'), n("c", 'p')}, settings(2), {"c"}, {"a"},
       {"b", "c"}, ""},
      {"finished but still cordoned keeps its slot", {cordoned(n("a", 'd')), n("b", 'g'), n("c", 'p')}, settings(2), {}, {"a"},
       {"a", "b"}, "maxUnavailable 2"},
      {"finished, its Node seen from before the cordon, its agent still holding it: keeps its slot",
       {held_by_status(n("a", 'd')), n("b", 'g'), n("c", 'p')}, settings(2), {}, {"a"}, {"a", "b"}, "maxUnavailable 2"},
      {"withdrawn, its agent not done uncordoning: still no room",
       {held_by_status(n("a", 'u')), held_by_status(n("b", 'u')), n("c", 'p')}, settings(2), {}, {}, {"a", "b"},
       "maxUnavailable 2"},
      {"up-to-date nodes are never granted", {n("a", 'u'), n("b", 'p')}, settings(5), {"b"}, {}, {"b"}, ""},
      {"an administrator's cordon counts", {cordoned(n("a", 'u')), n("b", 'p'), n("c", 'p')}, settings(2), {"b"}, {},
       {"a", "b"}, "maxUnavailable 2"},
      {"a NotReady node counts", {not_ready(n("a", 'u')), n("b", 'p')}, settings(1), {}, {}, {"a"}, "maxUnavailable 1"},
      {"an unavailable pending node is granted without adding to the count",
       {cordoned(n("a", 'p')), n("b", 'p')}, settings(1), {"a"}, {}, {"a"}, "maxUnavailable 1"},
      {"a node NotReady for now is granted only while fewer than the limit hold permission or are cordoned",
       {n("b", 'g'), not_ready(n("a", 'p')), not_ready(n("c", 'p')), n("d", 'p')}, settings(2), {"a"}, {}, {"a", "b", "c"},
       "maxUnavailable 2"},
      {"a NotReady node with the limit held is not granted", {n("b", 'g'), cordoned(n("e", 'u')), not_ready(n("a", 'p'))},
       settings(2), {}, {}, {"a", "b", "e"}, "maxUnavailable 2"},
      {"a node without a heartbeating agent is not granted but counts",
       {no_agent(n("a", 'p')), n("b", 'p'), n("c", 'p')}, settings(2), {"b"}, {}, {"a", "b"}, "maxUnavailable 2"},
      {"order key first, then name", {key(n("a", 'p'), "wave-2"), key(n("b", 'p'), "wave-1"), key(n("c", 'p'), "wave-1")},
       settings(2), {"b", "c"}, {}, {"b", "c"}, "maxUnavailable 2"},
      {"nodes without the order label last", {unlabelled(n("a", 'p')), key(n("z", 'p'), "1-late"), key(n("y", 'p'), "0-canary")},
       settings(2), {"y", "z"}, {}, {"y", "z"}, "maxUnavailable 2"},
      {"paused: nothing new, in progress continues", {n("a", 'g'), n("b", 'p')}, paused, {}, {}, {"a"}, "paused"},
      {"paused: a finished node still gives its permission back", {n("a", 'd'), n("b", 'p')}, paused, {}, {"a"}, {}, "paused"},
      {"window closed: nothing new", {n("a", 'g'), n("b", 'p')}, closed, {}, {}, {"a"}, "next opens Sat 01:00"},
      {"one failure within a budget of 1 goes on", {n("a", 'f'), n("b", 'p')}, settings(2, 1), {"b"}, {}, {"b"}, ""},
      {"a failed node's permission leaves room (its agent does not act on it)", {n("a", 'f'), n("b", 'p')}, settings(1, 1),
       {"b"}, {}, {"b"}, ""},
      {"failed and cordoned counts as unavailable", {cordoned(n("a", 'f')), n("b", 'p'), n("c", 'p')}, settings(2, 1), {"b"},
       {}, {"a", "b"}, "maxUnavailable 2"},
      {"more failures than the budget stop grants", {n("a", 'f'), n("b", 'f'), n("c", 'p')}, settings(3, 1), {}, {}, {},
       "2 nodes failed, more than the failure budget of 1: a, b"},
      {"budget 0: the first failure stops", {n("a", 'f'), n("b", 'p')}, settings(3, 0), {}, {}, {}, "failure budget of 0"},
      {"a cleared failure queues again", {n("a", 'r'), n("b", 'f'), n("c", 'p')}, settings(3, 0), {}, {"a"}, {},
       "failure budget of 0: b"},
      {"cleared failures resume the rollout", {n("a", 'r'), n("b", 'p')}, settings(1, 0), {"a"}, {"a"}, {"a"},
       "maxUnavailable 1"},
      {"a vanished node that held permission still counts", {no_agent(not_ready(n("gone", 'g'))), n("b", 'p')}, settings(1),
       {}, {}, {"gone"}, "maxUnavailable 1"},
      {"a node its agent has not reported on yet is not granted (a withdrawal's own generation)",
       {unreported(n("a", 'p')), n("b", 'p')}, settings(2), {"b"}, {}, {"b"}, ""},
      {"a permission withdrawn by a new spec, its agent not caught up: still holds its slot",
       {withdrawal_unseen(n("a", 'p')), n("b", 'p'), n("c", 'p')}, settings(2), {"b"}, {}, {"a", "b"}, "maxUnavailable 2"},
      {"withdrawn and unseen, the limit reached: nothing granted", {withdrawal_unseen(n("a", 'p')), n("b", 'p')}, settings(1),
       {}, {}, {"a"}, "maxUnavailable 1"},
      {"withdrawn and unseen, and cordoned too: counted once", {cordoned(withdrawal_unseen(n("a", 'p'))), n("b", 'p')},
       settings(2), {"b"}, {}, {"a", "b"}, ""},
      {"new member joins mid-rollout and queues", {n("a", 'g'), n("new", 'p')}, settings(1), {}, {}, {"a"}, "maxUnavailable 1"},
      {"no grant beyond the limit even when many wait", {n("a", 'p'), n("b", 'p'), n("c", 'p'), n("d", 'p')}, settings(1),
       {"a"}, {}, {"a"}, "maxUnavailable 1"},
  };
  for (const auto& c : cases) {
    const auto d = decide_rollout(c.nodes, c.settings);
    EXPECT_EQ(d.grant, c.grant) << c.name;
    EXPECT_EQ(d.withdraw, c.withdraw) << c.name;
    EXPECT_EQ(d.unavailable, c.unavailable) << c.name;
    if (c.waiting_contains.empty()) {
      EXPECT_EQ(d.waiting, "") << c.name;
    } else {
      EXPECT_NE(d.waiting.find(c.waiting_contains), std::string::npos) << c.name << ": " << d.waiting;
    }
    EXPECT_LE(static_cast<int>(d.unavailable.size()),
              std::max<int>(c.settings.max_unavailable,
                            static_cast<int>(std::count_if(c.nodes.begin(), c.nodes.end(), [](const RolloutNode& x) {
                              return !x.ready || !x.agent_alive || x.cordoned || x.agent_cordoned || x.withdrawal_unseen ||
                                     (x.granted && !x.up_to_date && !x.failed);
                            }))))
        << c.name << ": a decision made more nodes unavailable than allowed";
    // Permission held or cordoned, after the decision: what the bench's
    // rollout recorder counts as disrupted.
    std::set<std::string> held_before, held_after(d.grant.begin(), d.grant.end());
    for (const auto& x : c.nodes) {
      const bool cordon = x.cordoned || x.agent_cordoned || x.withdrawal_unseen;
      if ((x.granted && !x.failed) || cordon) held_before.insert(x.name);
      const bool withdrawn = std::find(d.withdraw.begin(), d.withdraw.end(), x.name) != d.withdraw.end();
      if ((x.granted && !x.failed && !withdrawn) || cordon) held_after.insert(x.name);
    }
    EXPECT_LE(held_after.size(), std::max<std::size_t>(static_cast<std::size_t>(std::max(c.settings.max_unavailable, 1)),
                                                       held_before.size()))
        << c.name << ": a decision let more nodes hold permission or stay cordoned than allowed";
    // While the writes land, in the worst order: every grant that does not
    // wait first, every withdrawal last; each waiting grant after a freeing
    // withdrawal of its own.
    std::set<std::string> held_mid = held_before;
    for (const auto& g : d.grant) {
      if (std::find(d.grants_waiting.begin(), d.grants_waiting.end(), g) == d.grants_waiting.end()) held_mid.insert(g);
    }
    const auto bound = std::max<std::size_t>(static_cast<std::size_t>(std::max(c.settings.max_unavailable, 1)),
                                             held_before.size());
    EXPECT_LE(held_mid.size(), bound) << c.name << ": grants that go at once exceed the limit before the withdrawals land";
    EXPECT_LE(d.grants_waiting.size(), d.freeing.size()) << c.name << ": a waiting grant has no withdrawal to wait for";
    for (const auto& f : d.freeing) {
      EXPECT_TRUE(held_before.count(f)) << c.name << ": " << f << " frees a slot it did not hold";
      EXPECT_FALSE(held_after.count(f)) << c.name << ": " << f << " still holds its slot after the withdrawal";
    }
  }
}

TEST(DecideRollout, GrantsThatNeedAWithdrawalFirstWaitForOne) {
  struct Order {
    std::string name;
    std::vector<RolloutNode> nodes;
    int limit;
    Names grant, waiting, freeing;
  };
  const std::vector<Order> cases = {
      {"room beside what is held: every grant at once", {n("a", 'g'), n("b", 'p'), n("c", 'p')}, 3, {"b", "c"}, {}, {}},
      {"a finished node's slot: its grant waits for the withdrawal", {n("a", 'd'), n("b", 'g'), n("c", 'p')}, 2, {"c"},
       {"c"}, {"a"}},
      {"one free slot and one freed: the first at once, the second waits",
       {n("a", 'd'), n("b", 'p'), n("c", 'p')}, 2, {"b", "c"}, {"c"}, {"a"}},
      {"finished but still cordoned frees nothing", {cordoned(n("a", 'd')), n("b", 'p')}, 2, {"b"}, {}, {}},
      {"a cleared failure held nothing: its withdrawal frees nothing", {n("a", 'r'), n("b", 'p')}, 1, {"a"}, {}, {}},
      {"a cordoned pending node adds nothing: at once", {n("a", 'd'), cordoned(n("b", 'p'))}, 2, {"b"}, {}, {"a"}},
  };
  for (const auto& c : cases) {
    const auto d = decide_rollout(c.nodes, settings(c.limit));
    EXPECT_EQ(d.grant, c.grant) << c.name;
    EXPECT_EQ(d.grants_waiting, c.waiting) << c.name;
    EXPECT_EQ(d.freeing, c.freeing) << c.name;
  }
}

TEST(DecideRollout, CountsForTheStatus) {
  const auto d = decide_rollout({n("a", 'u'), n("b", 'g'), n("c", 'f'), n("d", 'p'), n("e", 'p'), no_agent(n("f", 'p'))},
                                settings(3, 5));  // b and f (no agent) unavailable: room for one
  EXPECT_EQ(d.updated, 1);
  EXPECT_EQ(d.in_progress, (Names{"b", "d"}));
  EXPECT_EQ(d.failed, (Names{"c"}));
  EXPECT_EQ(d.pending, (Names{"e"}));
  EXPECT_EQ(d.no_agent, (Names{"f"}));
  EXPECT_FALSE(d.budget_exhausted);
}

TEST(DecideRollout, UpToDateNodesTheirAgentsHaveNotUncordonedAreFinishing) {
  // a: done, permission still held, its agent's cordon still on; b: the
  // permission already withdrawn, cordon still on; c: an administrator's
  // cordon on an up-to-date node (no agent record): not ours to wait for.
  const auto d = decide_rollout({agent_cordoned(n("a", 'd')), agent_cordoned(n("b", 'u')), cordoned(n("c", 'u')), n("e", 'u')},
                                settings(2));
  EXPECT_EQ(d.finishing, (Names{"a", "b"}));
  EXPECT_EQ(d.withdraw, (Names{"a"}));
  EXPECT_TRUE(d.in_progress.empty());
  EXPECT_EQ(d.updated, 4);
  EXPECT_EQ(d.unavailable, (Names{"a", "b", "c"}));
  EXPECT_TRUE(decide_rollout({agent_cordoned(n("a", 'p'))}, settings(1)).finishing.empty()) << "not up to date: pending";
}

TEST(DecideRollout, ANodeNotReportedOnIsPendingUntilItsAgentReports) {
  const auto d = decide_rollout({unreported(n("a", 'p'))}, settings(1));
  EXPECT_TRUE(d.grant.empty());
  EXPECT_EQ(d.pending, (Names{"a"}));
  EXPECT_EQ(decide_rollout({n("a", 'p')}, settings(1)).grant, (Names{"a"})) << "reported: granted";
}

// A whole rollout simulated step by step: every step's unavailable count
// stays within the limit, and it finishes.
TEST(DecideRollout, ASimulatedRolloutNeverExceedsTheLimitAndFinishes) {
  std::vector<RolloutNode> nodes;
  for (int i = 0; i < 10; ++i) nodes.push_back(n("node-" + std::to_string(i), 'p'));
  nodes[3] = cordoned(nodes[3]);  // an administrator's cordon on a pending node
  int steps = 0;
  while (steps++ < 100) {
    const auto d = decide_rollout(nodes, settings(2));
    ASSERT_LE(d.unavailable.size(), 2u) << "step " << steps;
    for (auto& x : nodes) {
      if (std::find(d.withdraw.begin(), d.withdraw.end(), x.name) != d.withdraw.end()) x.granted = false;
      if (std::find(d.grant.begin(), d.grant.end(), x.name) != d.grant.end()) x.granted = true;
    }
    if (d.updated == 10 && d.withdraw.empty() && d.in_progress.empty()) break;
    // The agents of the granted nodes finish one step later.
    for (auto& x : nodes) {
      if (x.granted) x.up_to_date = true;
    }
  }
  EXPECT_LT(steps, 100);
  for (const auto& x : nodes) EXPECT_TRUE(x.up_to_date && !x.granted) << x.name;
}

TEST(ResolveMaxUnavailable, Table) {
  struct Row {
    api::IntOrString value;
    int members;
    int want;
  };
  const std::vector<Row> cases = {
      {api::IntOrString{3}, 10, 3},  {api::IntOrString{3}, 2, 3},      {api::IntOrString{std::string("10%")}, 5000, 500},
      {api::IntOrString{std::string("10%")}, 10, 1},   {api::IntOrString{std::string("25%")}, 10, 2},  // 2.5 rounds down
      {api::IntOrString{std::string("10%")}, 5, 1},    // 0.5 rounds down, then at least 1
      {api::IntOrString{std::string("100%")}, 7, 7},   {api::IntOrString{std::string("1%")}, 0, 1},
  };
  for (const auto& c : cases) EXPECT_EQ(resolve_max_unavailable(c.value, c.members), c.want);
}

}  // namespace
}  // namespace gpupool::pool
