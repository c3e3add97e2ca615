// SelectingPools (include/gpupool/pool_controller/selecting_pools.h): the
// pools a Node's labels concern, kept in step with the pool store.
#include "gpupool/pool_controller/selecting_pools.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace gpupool::pool_controller {
namespace {

void put_pool(runtime::Store<kube::Object>& store, const std::string& name, const std::string& rv,
              const std::string& spec) {
  const std::string json = R"({"apiVersion":"gpupool.io/v1alpha1","kind":"GPUPool","metadata":{"name":")" + name +
                           R"(","resourceVersion":")" + rv + R"("},"spec":)" + spec + "}";
  store.upsert(name, std::make_shared<const kube::Object>(kube::decode_object(json)));
}

kube::Object node(const std::string& labels) {
  return kube::decode_object(R"({"metadata":{"name":"n","labels":{)" + labels + "}}}");
}

std::vector<std::string> names(const std::vector<runtime::Request>& requests) {
  std::vector<std::string> out;
  for (const auto& r : requests) out.push_back(r.name);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(SelectingPools, NamesThePoolsWhoseSelectorMatchesAndThePoolTheLabelNames) {
  runtime::Store<kube::Object> pools;
  put_pool(pools, "train", "1", R"({"nodeSelector":{"matchLabels":{"model":"h100"}}})");
  put_pool(pools, "infer", "1", R"({"nodeSelector":{"matchLabels":{"model":"a100"}}})");
  put_pool(pools, "zone-x", "1", R"({"priority":5,"nodeSelector":{"matchLabels":{"zone":"x"}}})");
  SelectingPools selecting(pools);
  const struct {
    std::string labels;
    std::vector<std::string> want;
  } cases[] = {
      {R"("model":"h100")", {"train"}},
      {R"("model":"h100","driver":"570")", {"train"}},
      {R"("model":"a100","zone":"x")", {"infer", "zone-x"}},
      {R"("model":"t4")", {}},
      // A node still labelled for a pool that no longer selects it.
      {R"("model":"t4","gpupool.io/pool":"train")", {"train"}},
      {R"("gpupool.io/pool":"gone")", {}},
  };
  for (const auto& c : cases) EXPECT_EQ(names(selecting(node(c.labels))), c.want) << c.labels;
}

TEST(SelectingPools, FollowsThePoolStore) {
  runtime::Store<kube::Object> pools;
  put_pool(pools, "train", "1", R"({"nodeSelector":{"matchLabels":{"model":"h100"}}})");
  SelectingPools selecting(pools);
  EXPECT_EQ(names(selecting(node(R"("model":"a100")"))), std::vector<std::string>{});
  // The selector changed: read again at the new resourceVersion.
  put_pool(pools, "train", "2", R"({"nodeSelector":{"matchLabels":{"model":"a100"}}})");
  EXPECT_EQ(names(selecting(node(R"("model":"a100")"))), std::vector<std::string>{"train"});
  // A pool whose spec cannot be read is always named.
  put_pool(pools, "broken", "1", R"({"nodeSelector":{"matchExpressions":[{"key":"k","operator":7}]}})");
  EXPECT_EQ(names(selecting(node(R"("model":"t4")"))), std::vector<std::string>{"broken"});
  pools.erase("broken");
  pools.erase("train");
  EXPECT_TRUE(selecting(node(R"("model":"a100")")).empty());
}

TEST(SelectingPools, ASelectionChangesOnlyWhenThePoolsALabelConcernsDiffer) {
  runtime::Store<kube::Object> pools;
  put_pool(pools, "train", "1", R"({"nodeSelector":{"matchLabels":{"model":"h100"}}})");
  put_pool(pools, "zone-x", "1", R"({"priority":5,"nodeSelector":{"matchLabels":{"zone":"x"}}})");
  SelectingPools selecting(pools);
  const struct {
    const char* what;
    std::string before, after;
    bool deleting_after;
    bool changed;
  } cases[] = {
      {"the agent's driver label", R"("model":"h100")", R"("model":"h100","driver":"570")", false, false},
      {"nothing", R"("model":"h100")", R"("model":"h100")", false, false},
      {"a label no pool selects on, outside every pool", R"("model":"t4")", R"("model":"t4","a":"b")", false, false},
      {"relabelled for another model", R"("model":"h100")", R"("model":"a100")", false, true},
      {"a second pool selects it too", R"("model":"h100")", R"("model":"h100","zone":"x")", false, true},
      {"labelled for a pool", R"("model":"t4")", R"("model":"t4","gpupool.io/pool":"train")", false, true},
      {"labelled for a pool that is not there", R"("model":"t4")", R"("model":"t4","gpupool.io/pool":"gone")", false,
       false},
      {"its deletion began", R"("model":"h100")", R"("model":"h100")", true, true},
  };
  for (const auto& c : cases) {
    auto after = node(c.after);
    after.deleting = c.deleting_after;
    EXPECT_EQ(selecting.selection_changed(node(c.before), after), c.changed) << c.what;
  }
}

}  // namespace
}  // namespace gpupool::pool_controller
