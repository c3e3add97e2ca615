// The controller process's stored GPUNodes (controller/stored_objects.h)
// leave out only what no reconciler reads, and still decode (their status
// read back from its record, stored/gpunode.h).
#include "controller/stored_objects.h"

#include <gtest/gtest.h>

#include "gpupool/api/codec.h"
#include "object_facts.h"
#include "support/gpunode_sample.h"

namespace gpupool::controller {
namespace {

constexpr const char* kGpuNode = test::kReportedGpuNode;

TEST(StoredGpuNodes, LeaveOutOnlyWhatNoReconcilerReads) {
  const kube::Object whole = kube::decode_object(kGpuNode);
  const kube::Object kept = stored_gpunodes().decode(kGpuNode);
  auto full = api::decode_gpunode(whole.doc);
  auto lean = stored::decode_gpunode(kept);
  ASSERT_TRUE(full.ok());
  ASSERT_TRUE(lean.ok()) << api::format_field_errors(lean.errors);

  // The whole object, less exactly the fields the trim names.
  api::GPUNode expected = *full.value;
  expected.status = test::as_stored(*expected.status);
  EXPECT_EQ(*lean.value, expected);
  // What the reconcilers keep: conditions, operations, health reasons, instances' profiles and memory.
  EXPECT_EQ(lean.value->status->conditions, full.value->status->conditions);
  EXPECT_EQ(lean.value->status->operations, full.value->status->operations);
  ASSERT_EQ(lean.value->status->gpus.size(), 2u);
  EXPECT_EQ(lean.value->status->gpus[0].partition.instances.at(1).profile, "1g.10gb");
  EXPECT_EQ(lean.value->status->gpus[0].partition.instances.at(1).memory_mib, 9728);
  EXPECT_EQ(lean.value->status->gpus[1].health_reasons, std::vector<std::string>{"XID 79"});

  const auto a = pool_controller::gpunode_state(*full.value);
  const auto b = pool_controller::gpunode_state(*lean.value);
  EXPECT_EQ(b.observed, a.observed);
  EXPECT_EQ(b.up_to_date, a.up_to_date);
  EXPECT_TRUE(b.failed);
  EXPECT_EQ(b.failure, a.failure);

  // The status is kept as a record, not in the DOM.
  EXPECT_FALSE(kept.doc.HasMember("status"));
  EXPECT_NE(dynamic_cast<const stored::GPUNodeParts*>(kept.part.get()), nullptr);
  EXPECT_LT(kept.allocator->Size(), whole.allocator->Size());
}

}  // namespace
}  // namespace gpupool::controller
