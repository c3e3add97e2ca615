// The approval record: the spec as read, its generation, guarded by its resourceVersion.
#include <gtest/gtest.h>

#include "gpupool/kube/client.h"
#include "gpupool/quota/approval.h"

namespace gpupool::quota {
namespace {

TEST(Approval, RecordsTheSpecAsReadAndItsGeneration) {
  api::TenantQuota q;
  q.metadata.name = "train";
  q.metadata.namespace_ = "ml";
  q.metadata.generation = 3;
  q.metadata.resource_version = "4711";
  q.spec.pool_ref.name = "a100";
  q.spec.resources["nvidia.com/gpu"] = {api::Quantity::from_int(8), false};
  q.spec.borrowing_limit["nvidia.com/gpu"] = {api::Quantity::from_int(2), false};
  const api::Time now(std::chrono::sys_days{std::chrono::year{2026} / 11 / 25});
  const auto r = approval_of(q, now);
  EXPECT_EQ(r.resources, q.spec.resources);
  EXPECT_EQ(r.borrowing_limit, q.spec.borrowing_limit);
  EXPECT_EQ(r.generation, 3);
  EXPECT_EQ(r.approved_at, now);
  const auto patch = kube::parse_json(approval_patch(q, now));
  EXPECT_EQ(kube::string_at(patch, {"metadata", "resourceVersion"}), "4711");
  EXPECT_EQ(kube::string_at(patch, {"status", "approved", "resources", "nvidia.com/gpu"}), "8");
  EXPECT_EQ(kube::string_at(patch, {"status", "approved", "approvedAt"}), "2026-11-25T00:00:00Z");
  EXPECT_EQ(patch["status"]["approved"]["generation"].GetInt64(), 3);
  EXPECT_FALSE(patch.HasMember("spec")) << "only status is written";
}

}  // namespace
}  // namespace gpupool::quota
