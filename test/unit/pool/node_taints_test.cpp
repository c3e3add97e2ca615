// taint_change: the pool's taints come and go; nobody else's are touched.
#include <gtest/gtest.h>

#include "gpupool/pool/node_taints.h"

namespace gpupool::pool {
namespace {

api::Taint taint(const std::string& key, const std::string& value, api::TaintEffect effect) {
  api::Taint t;
  t.key = key;
  t.value = value;
  t.effect = effect;
  return t;
}

const NodeTaint kAdmin{"maintenance", "disk", "NoSchedule"};
const NodeTaint kNotReady{"node.kubernetes.io/not-ready", "", "NoExecute"};

TEST(TaintChange, AddsThePoolsTaintsAndRecordsThem) {
  auto c = taint_change({kAdmin}, "", {taint("nvidia.com/gpu", "present", api::TaintEffect::no_schedule)});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->taints, (std::vector<NodeTaint>{kAdmin, {"nvidia.com/gpu", "present", "NoSchedule"}}));
  EXPECT_EQ(c->recorded, "nvidia.com/gpu=present:NoSchedule\n");
  // Applied again: nothing to do.
  EXPECT_FALSE(taint_change(c->taints, c->recorded, {taint("nvidia.com/gpu", "present", api::TaintEffect::no_schedule)}));
}

TEST(TaintChange, RemovesOnlyWhatItAddedWhenTheNodeLeaves) {
  const std::vector<NodeTaint> now{kAdmin, {"nvidia.com/gpu", "present", "NoSchedule"}, kNotReady};
  auto c = taint_change(now, "nvidia.com/gpu=present:NoSchedule\n", {});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->taints, (std::vector<NodeTaint>{kAdmin, kNotReady}));
  EXPECT_EQ(c->recorded, "");
}

TEST(TaintChange, ATaintSomeoneElseHadIsNeverTakenOver) {
  // An administrator tainted the node with our key first: we neither change nor record it.
  const NodeTaint admin_gpu{"nvidia.com/gpu", "reserved", "NoSchedule"};
  auto c = taint_change({admin_gpu}, "", {taint("nvidia.com/gpu", "present", api::TaintEffect::no_schedule)});
  EXPECT_FALSE(c);
  // So leaving the pool keeps it.
  EXPECT_FALSE(taint_change({admin_gpu}, "", {}));
}

TEST(TaintChange, AChangedValueOrEffectReplacesOurOwnTaint) {
  const std::vector<NodeTaint> now{{"gpupool.io/pool", "a", "NoSchedule"}, kAdmin};
  auto c = taint_change(now, "gpupool.io/pool=a:NoSchedule\n",
                        {taint("gpupool.io/pool", "b", api::TaintEffect::no_schedule),
                         taint("gpupool.io/dedicated", "", api::TaintEffect::prefer_no_schedule)});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->taints, (std::vector<NodeTaint>{{"gpupool.io/pool", "b", "NoSchedule"}, kAdmin,
                                               {"gpupool.io/dedicated", "", "PreferNoSchedule"}}));
  EXPECT_EQ(c->recorded, "gpupool.io/pool=b:NoSchedule\ngpupool.io/dedicated=:PreferNoSchedule\n");
}

TEST(TaintChange, ARecordedTaintSomeoneRemovedIsForgotten) {
  auto c = taint_change({kAdmin}, "nvidia.com/gpu=present:NoSchedule\n", {});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->taints, (std::vector<NodeTaint>{kAdmin}));
  EXPECT_EQ(c->recorded, "");
}

}  // namespace
}  // namespace gpupool::pool
