// MembershipCache (include/gpupool/pool_controller/membership_cache.h): the
// same answer as resolve_membership over the store, resolved again only when
// a selector, a node's labels or the set of nodes changed.
#include "gpupool/pool_controller/membership_cache.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace gpupool::pool_controller {
namespace {

void put(runtime::Store<kube::Object>& store, const std::string& name, const std::string& rv, const std::string& labels) {
  const std::string json = R"({"metadata":{"name":")" + name + R"(","resourceVersion":")" + rv + R"(","labels":{)" +
                           labels + "}}}";
  store.upsert(name, std::make_shared<const kube::Object>(kube::decode_object(json)));
}

pool::PoolSelector selector(const std::string& pool, const std::string& model, std::int32_t priority = 0) {
  pool::PoolSelector s;
  s.name = pool;
  s.priority = priority;
  s.node_selector.match_labels = {{"model", model}};
  return s;
}

TEST(MembershipCache, ResolvesAgainOnlyWhenItsInputsChange) {
  runtime::Store<kube::Object> nodes;
  put(nodes, "a", "1", R"("model":"h100")");
  put(nodes, "b", "1", R"("model":"a100")");
  MembershipCache cache;
  const std::vector<pool::PoolSelector> pools = {selector("train", "h100"), selector("infer", "a100")};

  auto m = cache.get(pools, nodes);
  EXPECT_EQ(m->members.at("train"), (std::vector<std::string>{"a"}));
  EXPECT_EQ(m->members.at("infer"), (std::vector<std::string>{"b"}));
  EXPECT_EQ(cache.resolutions(), 1u);

  // The same inputs, the pools in another order: the answer kept.
  EXPECT_EQ(cache.get({pools[1], pools[0]}, nodes), m);
  // A node changed without a label change (a cordon): kept.
  put(nodes, "a", "2", R"("model":"h100")");
  EXPECT_EQ(cache.get(pools, nodes), m);
  EXPECT_EQ(cache.resolutions(), 1u);
  // Relabelled without moving (an upgrade's driver labels): kept.
  put(nodes, "a", "3", R"("model":"h100","driver":"570")");
  EXPECT_EQ(cache.get(pools, nodes), m);
  EXPECT_EQ(cache.resolutions(), 1u);

  // A relabelled node moves.
  put(nodes, "b", "2", R"("model":"h100")");
  m = cache.get(pools, nodes);
  EXPECT_EQ(m->members.at("train"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(m->members.at("infer").empty());
  EXPECT_EQ(cache.resolutions(), 2u);

  // A node added, then one removed.
  put(nodes, "c", "1", R"("model":"a100")");
  EXPECT_EQ(cache.get(pools, nodes)->members.at("infer"), (std::vector<std::string>{"c"}));
  nodes.erase("a");
  EXPECT_EQ(cache.get(pools, nodes)->members.at("train"), (std::vector<std::string>{"b"}));
  EXPECT_EQ(cache.resolutions(), 4u);

  // A selector changed: a tie at the same priority is a conflict.
  m = cache.get({selector("train", "h100"), selector("infer", "h100")}, nodes);
  EXPECT_EQ(m->conflicts.count("b"), 1u);
  EXPECT_EQ(cache.resolutions(), 5u);
  // A pool being deleted selects nothing.
  auto deleting = selector("train", "h100", 1);
  deleting.deleting = true;
  m = cache.get({deleting, selector("infer", "h100")}, nodes);
  EXPECT_EQ(m->pool_of.at("b"), "infer");
  EXPECT_EQ(cache.resolutions(), 6u);
}

// Random relabellings, additions and removals of a few nodes under pools
// that overlap (ties, priorities, a pool being deleted): after each, the
// cache answers what resolving from scratch answers.
TEST(MembershipCache, AgreesWithAResolutionFromScratchAfterEveryChange) {
  const std::vector<std::string> models = {"h100", "a100", "t4"};
  const std::vector<std::string> zones = {"x", "y"};
  std::vector<pool::PoolSelector> pools = {selector("train", "h100", 1), selector("infer", "a100"),
                                           selector("any-a100", "a100"), selector("t4", "t4", 2)};
  pools[2].node_selector.match_labels = {{"zone", "x"}};  // ties with "infer" on a100 in zone x
  auto deleting = selector("old", "t4", 5);
  deleting.deleting = true;
  pools.push_back(deleting);
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    runtime::Store<kube::Object> nodes;
    std::map<std::string, std::map<std::string, std::string>> truth;
    MembershipCache cache;
    for (int step = 0; step < 60; ++step) {
      const std::string name = "n" + std::to_string(rng() % 6);
      if (rng() % 5 == 0) {
        nodes.erase(name);
        truth.erase(name);
      } else {
        auto& labels = truth[name];
        labels = {{"model", models[rng() % models.size()]}};
        if (rng() % 2) labels["zone"] = zones[rng() % zones.size()];
        if (rng() % 2) labels["driver"] = std::to_string(rng() % 3);  // moves nothing
        std::string json;
        for (const auto& [k, v] : labels) json += (json.empty() ? "" : ",") + ("\"" + k + "\":\"" + v + "\"");
        put(nodes, name, std::to_string(step + 2), json);
      }
      std::vector<pool::NodeLabels> all;
      for (const auto& [n, l] : truth) all.push_back({n, l});
      const pool::Membership want = pool::resolve_membership(pools, all);
      const auto got = cache.get(pools, nodes);
      ASSERT_EQ(got->pool_of, want.pool_of) << "seed " << seed << " step " << step;
      ASSERT_EQ(got->members, want.members) << "seed " << seed << " step " << step;
      ASSERT_EQ(got->conflicts.size(), want.conflicts.size()) << "seed " << seed << " step " << step;
      for (const auto& [n, c] : want.conflicts) ASSERT_EQ(got->conflicts.at(n).pools, c.pools) << "seed " << seed;
    }
  }
}

TEST(MembershipCache, WalksTheStoreOnlyAfterAWrite) {
  runtime::Store<kube::Object> nodes, other;
  put(nodes, "a", "1", R"("model":"h100")");
  put(other, "a", "1", R"("model":"h100")");
  MembershipCache cache;
  const std::vector<pool::PoolSelector> pools = {selector("train", "h100")};
  const auto m = cache.get(pools, nodes);
  EXPECT_EQ(cache.walks(), 1u);
  EXPECT_EQ(cache.get(pools, nodes), m);
  EXPECT_EQ(cache.walks(), 1u) << "nothing written since: no walk";
  put(nodes, "a", "2", R"("model":"h100")");  // a write, labels as they were
  EXPECT_EQ(cache.get(pools, nodes), m);
  EXPECT_EQ(cache.walks(), 2u);
  EXPECT_EQ(cache.resolutions(), 1u);
  // Other selectors, or another store: walked again.
  EXPECT_TRUE(cache.get({selector("train", "a100")}, nodes)->members.at("train").empty());
  EXPECT_EQ(cache.walks(), 3u);
  cache.get({selector("train", "a100")}, other);
  EXPECT_EQ(cache.walks(), 4u);
  nodes.erase("a");
  EXPECT_TRUE(cache.get(pools, nodes)->members.at("train").empty());
  EXPECT_EQ(cache.walks(), 5u);
}

TEST(MembershipCache, AnAnswerHandedOutStaysAsItWas) {
  runtime::Store<kube::Object> nodes;
  put(nodes, "a", "1", R"("model":"h100")");
  MembershipCache cache;
  const auto first = cache.get({selector("train", "h100")}, nodes);
  put(nodes, "a", "2", R"("model":"t4")");
  const auto second = cache.get({selector("train", "h100")}, nodes);
  EXPECT_EQ(first->members.at("train"), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(second->members.at("train").empty());
}

}  // namespace
}  // namespace gpupool::pool_controller
