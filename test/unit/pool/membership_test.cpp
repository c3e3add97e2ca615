// resolve_membership: priority, ties, deleting pools, determinism.
#include <gtest/gtest.h>

#include <algorithm>

#include "gpupool/pool/membership.h"

namespace gpupool::pool {
namespace {

PoolSelector pool(const std::string& name, int priority, std::map<std::string, std::string> match, bool deleting = false) {
  PoolSelector p;
  p.name = name;
  p.priority = priority;
  p.node_selector.match_labels = std::move(match);
  p.deleting = deleting;
  return p;
}

const std::vector<NodeLabels> kNodes = {
    {"n-a100-1", {{"model", "a100"}, {"zone", "a"}}},
    {"n-a100-2", {{"model", "a100"}, {"zone", "b"}}},
    {"n-h100-1", {{"model", "h100"}, {"zone", "a"}}},
    {"n-cpu", {{"zone", "a"}}},
};

TEST(Membership, HighestPriorityWinsAndUnselectedNodesBelongNowhere) {
  const auto m = resolve_membership({pool("all-zone-a", 10, {{"zone", "a"}}), pool("a100", 100, {{"model", "a100"}})}, kNodes);
  EXPECT_EQ(m.pool_of.at("n-a100-1"), "a100");  // both match: priority 100 wins
  EXPECT_EQ(m.pool_of.at("n-a100-2"), "a100");
  EXPECT_EQ(m.pool_of.at("n-h100-1"), "all-zone-a");
  EXPECT_EQ(m.pool_of.at("n-cpu"), "all-zone-a");
  EXPECT_EQ(m.members.at("a100"), (std::vector<std::string>{"n-a100-1", "n-a100-2"}));
  EXPECT_EQ(m.members.at("all-zone-a"), (std::vector<std::string>{"n-cpu", "n-h100-1"}));
  EXPECT_TRUE(m.conflicts.empty());

  const auto none = resolve_membership({pool("b200", 5, {{"model", "b200"}})}, kNodes);
  EXPECT_TRUE(none.pool_of.empty());
  EXPECT_TRUE(none.members.at("b200").empty());
}

TEST(Membership, EqualPriorityIsAConflictOnEveryPoolInvolvedAndNoOneOwnsTheNode) {
  const auto m = resolve_membership(
      {pool("train", 50, {{"model", "a100"}}), pool("infer", 50, {{"zone", "a"}}), pool("low", 1, {{"zone", "a"}})}, kNodes);
  ASSERT_EQ(m.conflicts.count("n-a100-1"), 1u);
  EXPECT_EQ(m.conflicts.at("n-a100-1").pools, (std::vector<std::string>{"infer", "train"}));
  EXPECT_EQ(m.pool_of.count("n-a100-1"), 0u);
  EXPECT_EQ(m.pool_of.at("n-a100-2"), "train");  // zone b: only train matches
  EXPECT_EQ(m.pool_of.at("n-h100-1"), "infer");  // a lower-priority match is no tie
  ASSERT_EQ(m.pool_conflicts.at("train").size(), 1u);
  EXPECT_EQ(m.pool_conflicts.at("train")[0].node, "n-a100-1");
  EXPECT_EQ(m.pool_conflicts.at("infer").size(), 1u);
  EXPECT_TRUE(m.pool_conflicts.at("low").empty());
  EXPECT_EQ(conflict_label_value(m.conflicts.at("n-a100-1")), "infer_train");

  // Raising one priority resolves it.
  const auto fixed = resolve_membership({pool("train", 51, {{"model", "a100"}}), pool("infer", 50, {{"zone", "a"}})}, kNodes);
  EXPECT_TRUE(fixed.conflicts.empty());
  EXPECT_EQ(fixed.pool_of.at("n-a100-1"), "train");
}

TEST(Membership, APoolBeingDeletedSelectsNothingSoTheNextPoolTakesOver) {
  const auto m = resolve_membership({pool("a100", 100, {{"model", "a100"}}, true), pool("zone-a", 1, {{"zone", "a"}})}, kNodes);
  EXPECT_EQ(m.pool_of.at("n-a100-1"), "zone-a");
  EXPECT_EQ(m.pool_of.count("n-a100-2"), 0u);
  EXPECT_TRUE(m.members.at("a100").empty());
}

TEST(Membership, InputOrderDoesNotMatter) {
  std::vector<PoolSelector> pools = {pool("x", 5, {{"zone", "a"}}), pool("y", 5, {{"model", "a100"}}), pool("z", 9, {{"model", "h100"}})};
  std::vector<NodeLabels> nodes = kNodes;
  const auto first = resolve_membership(pools, nodes);
  std::reverse(pools.begin(), pools.end());
  std::reverse(nodes.begin(), nodes.end());
  const auto second = resolve_membership(pools, nodes);
  EXPECT_EQ(first.pool_of, second.pool_of);
  EXPECT_EQ(first.members, second.members);
  ASSERT_EQ(first.conflicts.size(), second.conflicts.size());
  for (const auto& [node, c] : first.conflicts) EXPECT_EQ(c.pools, second.conflicts.at(node).pools);
}

TEST(Membership, LongConflictLabelValuesStayValid) {
  Conflict c;
  c.node = "n";
  c.pools = {std::string(40, 'a'), std::string(30, 'b')};
  const auto v = conflict_label_value(c);
  EXPECT_LE(v.size(), 63u);
  EXPECT_NE(v.back(), '_');
}

}  // namespace
}  // namespace gpupool::pool
