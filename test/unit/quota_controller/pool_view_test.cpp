// read_pool: a pool's members found through the GPUNodes' spec.pool index; QuotaReader: decoded quotas kept per resourceVersion.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gpupool/quota_controller/pool_view.h"
#include "gpupool/stored/gpunode.h"

namespace gpupool::quota_controller {
namespace {

using quota::kMicro;

runtime::Store<kube::Object>::Ptr gpunode(const std::string& name, const std::string& pool, int gpus) {
  std::string json = R"({"metadata":{"name":")" + name + R"("},"spec":{)" +
                     (pool.empty() ? std::string() : R"("pool":")" + pool + "\"") + R"(},"status":{"gpuCount":)" +
                     std::to_string(gpus) + "}}";
  return std::make_shared<const kube::Object>(kube::decode_object(json));
}

void put(runtime::Store<kube::Object>& store, const runtime::Store<kube::Object>::Ptr& obj) { store.upsert(obj->name, obj); }

std::int64_t gpus_of(const PoolView& v) {
  auto it = v.capacity.find(std::string(quota::kGpuUnit));
  return it == v.capacity.end() ? 0 : it->second / kMicro;
}

TEST(PoolView, CountsOnlyThePoolsMembersAsTheyMove) {
  runtime::Store<kube::Object> pools, policies, gpunodes;
  put(pools, std::make_shared<const kube::Object>(kube::decode_object(R"({"metadata":{"name":"a"},"spec":{}})")));
  put(gpunodes, gpunode("n1", "a", 8));
  put(gpunodes, gpunode("n2", "a", 4));
  put(gpunodes, gpunode("n3", "b", 2));
  put(gpunodes, gpunode("n4", "", 1));  // in no pool
  EXPECT_FALSE(gpunodes.has_index(kGpuNodesByPool));

  EXPECT_EQ(gpus_of(read_pool("a", pools, policies, gpunodes)), 12);
  EXPECT_TRUE(gpunodes.has_index(kGpuNodesByPool)) << "added on the first read";
  EXPECT_EQ(gpus_of(read_pool("b", pools, policies, gpunodes)), 2);

  // The index follows the store: a node moved, one removed, one added.
  put(gpunodes, gpunode("n2", "b", 4));
  gpunodes.erase("n1");
  put(gpunodes, gpunode("n5", "a", 1));
  EXPECT_EQ(gpus_of(read_pool("a", pools, policies, gpunodes)), 1);
  EXPECT_EQ(gpus_of(read_pool("b", pools, policies, gpunodes)), 6);

  std::vector<std::string> names;
  for (const auto& g : pool_gpunodes(gpunodes, "b")) names.push_back(g->name);
  EXPECT_EQ(names, (std::vector<std::string>{"n2", "n3"}));
}

// A member's report counts the same whether the store split it
// (stored/gpunode.h, as the controller keeps GPUNodes), kept it in the DOM,
// or could not decode it (a field a newer agent writes): its capacity never
// vanishes from the pool.
TEST(PoolView, CountsAMembersReportHoweverItIsKept) {
  const std::string report = R"("status":{"gpuCount":2,"gpus":[{"index":0,"model":"NVIDIA A100-SXM4-80GB",
    "memoryMiB":81920,"partition":{"capable":true,"migMode":"Enabled","instances":[{"profile":"3g.40gb","memoryMiB":40192}]}},
    {"index":1,"model":"NVIDIA A100-SXM4-80GB","memoryMiB":81920)";
  const std::string head = R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUNode","metadata":{"name":"n1"},
    "spec":{"nodeName":"n1","pool":"a"},)";
  const std::string valid = head + report + "}]}}";
  const std::string newer = head + report + R"(,"fieldFromTheFuture":1}]}})";
  kube::DecodeTrim split;
  split.take_part = stored::take_gpunode_parts;
  const std::vector<std::pair<std::string, std::function<kube::Object()>>> forms = {
      {"split", [&] { return kube::decode_object(valid, split); }},
      {"in the DOM", [&] { return kube::decode_object(valid); }},
      {"not decoding", [&] { return kube::decode_object(newer, split); }}};
  for (const auto& [how, make] : forms) {
    runtime::Store<kube::Object> pools, policies, gpunodes;
    put(pools, std::make_shared<const kube::Object>(kube::decode_object(R"({"metadata":{"name":"a"},"spec":{}})")));
    auto node = std::make_shared<const kube::Object>(make());
    EXPECT_EQ(node->part != nullptr, how == "split") << how;
    put(gpunodes, node);
    EXPECT_EQ(gpus_of(read_pool("a", pools, policies, gpunodes)), 2) << how;
  }
}

TEST(PoolView, QuotasByTheirPoolRef) {
  runtime::Store<kube::Object> quotas;
  auto quota = [](const std::string& ns, const std::string& pool) {
    return std::make_shared<const kube::Object>(kube::decode_object(
        R"({"metadata":{"name":"q","namespace":")" + ns + R"("},"spec":{"poolRef":{"name":")" + pool + R"("}}})"));
  };
  auto put_quota = [&](const runtime::Store<kube::Object>::Ptr& q) { quotas.upsert(kube::object_key(q->ns, q->name), q); };
  put_quota(quota("t1", "a"));
  put_quota(quota("t2", "b"));
  put_quota(quota("t3", "a"));
  auto keys = [&](const std::string& pool) {
    std::vector<std::string> out;
    for (const auto& q : pool_quotas(quotas, pool)) out.push_back(kube::object_key(q->ns, q->name));
    return out;
  };
  EXPECT_EQ(keys("a"), (std::vector<std::string>{"t1/q", "t3/q"}));
  put_quota(quota("t1", "b"));  // moved to another pool
  EXPECT_EQ(keys("a"), (std::vector<std::string>{"t3/q"}));
  EXPECT_EQ(keys("b"), (std::vector<std::string>{"t1/q", "t2/q"}));
  EXPECT_TRUE(keys("c").empty());
}

}  // namespace
}  // namespace gpupool::quota_controller

namespace gpupool::quota_controller {
namespace {

runtime::Store<kube::Object>::Ptr tenant_quota(const std::string& ns, const std::string& rv, const std::string& gpus,
                                               bool deleting = false) {
  return std::make_shared<const kube::Object>(kube::decode_object(
      R"({"apiVersion":"gpupool.io/v1alpha1","kind":"TenantQuota","metadata":{"name":"q","namespace":")" + ns +
      R"(","resourceVersion":")" + rv + "\"" +
      (deleting ? R"(,"deletionTimestamp":"2026-11-27T10:00:00Z","finalizers":["x"])" : "") +
      R"(},"spec":{"poolRef":{"name":"a"},"resources":{"gpupool.io/gpu":)" + gpus + "}}}"));
}

void put_quota(runtime::Store<kube::Object>& store, const runtime::Store<kube::Object>::Ptr& q) {
  store.upsert(kube::object_key(q->ns, q->name), q);
}

std::vector<std::string> namespaces_of(const std::vector<QuotaReader::Decoded>& quotas) {
  std::vector<std::string> out;
  for (const auto& q : quotas) out.push_back(q->metadata.namespace_);
  return out;
}

TEST(QuotaReader, DecodesOnlyWhatWasWrittenSinceTheLastRead) {
  runtime::Store<kube::Object> store;
  put_quota(store, tenant_quota("t1", "10", "4"));
  put_quota(store, tenant_quota("t2", "11", "2"));
  QuotaReader reader;
  auto first = reader.read(store);
  EXPECT_EQ(namespaces_of(first), (std::vector<std::string>{"t1", "t2"}));
  EXPECT_EQ(reader.decodes(), 2u);

  auto again = reader.read(store);
  EXPECT_EQ(reader.decodes(), 2u) << "nothing written: nothing decoded";
  EXPECT_EQ(again[0].get(), first[0].get()) << "the same decoded quota, shared";

  put_quota(store, tenant_quota("t2", "12", "6"));  // written: decoded again, as it is now
  put_quota(store, tenant_quota("t3", "13", "1"));  // new
  auto third = reader.read(store);
  EXPECT_EQ(reader.decodes(), 4u);
  ASSERT_EQ(namespaces_of(third), (std::vector<std::string>{"t1", "t2", "t3"}));
  EXPECT_EQ(third[1]->spec.resources.at("gpupool.io/gpu").quantity.text(), "6");
  EXPECT_EQ(third[0].get(), first[0].get());
}

TEST(QuotaReader, LeavesOutDeletedDeletingAndUnreadableQuotas) {
  runtime::Store<kube::Object> store;
  put_quota(store, tenant_quota("t1", "10", "4"));
  put_quota(store, tenant_quota("t2", "11", "2", true));  // being deleted
  put_quota(store, tenant_quota("t3", "12", R"("lots")"));  // not a quantity
  QuotaReader reader;
  EXPECT_EQ(namespaces_of(reader.read(store)), (std::vector<std::string>{"t1"}));
  EXPECT_EQ(namespaces_of(reader.read(store)), (std::vector<std::string>{"t1"}));
  EXPECT_EQ(reader.decodes(), 2u) << "the unreadable one is not decoded again at the same resourceVersion";

  store.erase(kube::object_key("t1", "q"));
  put_quota(store, tenant_quota("t3", "13", "3"));  // mended
  EXPECT_EQ(namespaces_of(reader.read(store)), (std::vector<std::string>{"t3"}));
  put_quota(store, tenant_quota("t1", "14", "4"));  // back under the same name: decoded afresh
  EXPECT_EQ(namespaces_of(reader.read(store)), (std::vector<std::string>{"t1", "t3"}));
  EXPECT_EQ(reader.decodes(), 4u);
}

runtime::Store<kube::Object>::Ptr versioned(const std::string& json) {
  return std::make_shared<const kube::Object>(kube::decode_object(json));
}

runtime::Store<kube::Object>::Ptr member(const std::string& name, const std::string& pool, int gpus, const std::string& rv) {
  return versioned(R"({"metadata":{"name":")" + name + R"(")" + (rv.empty() ? "" : R"(,"resourceVersion":")" + rv + "\"") +
                   R"(},"spec":{"pool":")" + pool + R"("},"status":{"gpuCount":)" + std::to_string(gpus) + "}}");
}

void expect_same(const PoolView& kept, const PoolView& read, const std::string& step) {
  EXPECT_EQ(kept.capacity, read.capacity) << step;
  EXPECT_EQ(kept.unit_costs, read.unit_costs) << step;
  EXPECT_EQ(kept.pool.has_value(), read.pool.has_value()) << step;
  EXPECT_EQ(kept.policy.has_value(), read.policy.has_value()) << step;
  EXPECT_EQ(kept.policy_name, read.policy_name) << step;
  EXPECT_EQ(kept.rules() != nullptr, read.rules() != nullptr) << step;
}

// What PoolReader keeps always equals read_pool from scratch, and the stores
// are read again exactly when the pool, its policy or a member moved.
TEST(PoolReader, ReadsAgainOnlyWhenThePoolItsPolicyOrAMemberMoved) {
  runtime::Store<kube::Object> pools, policies, gpunodes;
  const std::string pool_a = R"({"metadata":{"name":"a","resourceVersion":"1"},"spec":{"policyRef":{"name":"p"}}})";
  put(pools, versioned(pool_a));
  put(pools, versioned(R"({"metadata":{"name":"b","resourceVersion":"2"},"spec":{}})"));
  put(policies, versioned(R"({"metadata":{"name":"p","resourceVersion":"3"},"spec":{}})"));
  put(gpunodes, member("n1", "a", 8, "10"));
  put(gpunodes, member("n2", "a", 4, "11"));
  put(gpunodes, member("n3", "b", 2, "12"));
  PoolReader reader;
  struct Step {
    std::string name;
    std::function<void()> change;
    std::string pool;
    std::size_t reads;  // after this step's read
    std::int64_t gpus;
  };
  const std::vector<Step> steps = {
      {"first read", [] {}, "a", 1, 12},
      {"nothing moved", [] {}, "a", 1, 12},
      {"another pool", [] {}, "b", 2, 2},
      {"a member's status", [&] { put(gpunodes, member("n2", "a", 2, "13")); }, "a", 3, 10},
      {"a member moves in", [&] { put(gpunodes, member("n3", "a", 2, "14")); }, "a", 4, 12},
      {"and out of b", [] {}, "b", 5, 0},
      {"b again, unchanged", [] {}, "b", 5, 0},
      {"a member removed", [&] { gpunodes.erase("n1"); }, "a", 6, 4},
      {"the policy", [&] { put(policies, versioned(R"({"metadata":{"name":"p","resourceVersion":"20"},"spec":{}})")); },
       "a", 7, 4},
      {"the policy deleted", [&] { policies.erase("p"); }, "a", 8, 4},
      {"the pool", [&] { put(pools, versioned(R"({"metadata":{"name":"a","resourceVersion":"21"},"spec":{}})")); }, "a", 9, 4},
      {"the pool being deleted",
       [&] {
         put(pools, versioned(R"({"metadata":{"name":"a","resourceVersion":"22","deletionTimestamp":"2026-11-28T00:00:00Z"},"spec":{}})"));
       },
       "a", 10, 4},
      {"the pool gone", [&] { pools.erase("a"); }, "a", 11, 4},
      {"a member without a resourceVersion", [&] { put(gpunodes, member("n9", "b", 1, "")); }, "b", 12, 1},
      {"read every time then", [] {}, "b", 13, 1},
  };
  for (const auto& step : steps) {
    step.change();
    const PoolView kept = reader.read(step.pool, pools, policies, gpunodes);
    expect_same(kept, read_pool(step.pool, pools, policies, gpunodes), step.name);
    EXPECT_EQ(reader.reads(), step.reads) << step.name;
    EXPECT_EQ(gpus_of(kept), step.gpus) << step.name;
  }
}

}  // namespace
}  // namespace gpupool::quota_controller
