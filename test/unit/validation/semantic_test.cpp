// Semantic rules that the invalid-object table does not spell out: models
// pinned by GFD labels and `In` expressions, unpinned pools, GPUNode layouts
// against the reported GPU models, reference modes.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "gpupool/api/manifest.h"
#include "gpupool/validation/validate.h"

namespace {

using gpupool::validation::Problem;
using gpupool::validation::References;

std::vector<Problem> problems_of(const std::string& yaml, References refs = References::automatic) {
  auto manifests = gpupool::api::load_manifests_from_string(yaml, "t.yaml");
  EXPECT_TRUE(manifests.errors.empty());
  gpupool::validation::ValidateOptions options;
  options.catalog = &gpupool::gpu::Catalog::builtin();
  options.schemas = &gpupool::schema::CrdSchemaSet::builtin();
  options.references = refs;
  return gpupool::validation::validate_manifests(manifests, options).problems;
}

std::string dump(const std::vector<Problem>& ps) {
  std::string out;
  for (const auto& p : ps) out += format_problem(p) + "\n";
  return out;
}

bool has(const std::vector<Problem>& ps, const std::string& path, const std::string& reason_part) {
  return std::any_of(ps.begin(), ps.end(), [&](const Problem& p) {
    return p.path == path && p.reason.find(reason_part) != std::string::npos;
  });
}

std::string pool(const std::string& selector, const std::string& partitioning) {
  return "apiVersion: gpupool.io/v1alpha1\nkind: GPUPool\nmetadata: {name: p}\nspec:\n  nodeSelector: " + selector +
         "\n  partitioning: " + partitioning + "\n";
}

TEST(SemanticGPUPool, GfdProductLabelPinsTheModel) {
  auto ps = problems_of(pool("{matchLabels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB}}",
                             "{nvidia: {strategy: mixed, devices: [{profiles: {3g.40gb: 1}}]}}"));
  EXPECT_TRUE(has(ps, "spec.partitioning.nvidia.devices[0].profiles[3g.40gb]", "unknown profile for A100-SXM4-40GB"))
      << dump(ps);
}

TEST(SemanticGPUPool, EveryModelOfAnInExpressionMustFit) {
  // 3g.40gb x 2 fits an H100 80GB but not an H100 NVL's names (3g.47gb there).
  auto ps = problems_of(pool(
      "{matchExpressions: [{key: gpupool.io/gpu-model, operator: In, values: [h100-sxm5-80gb, h100-nvl-94gb]}]}",
      "{nvidia: {strategy: single, devices: [{profiles: {3g.40gb: 2}}]}}"));
  ASSERT_EQ(ps.size(), 1u) << dump(ps);
  EXPECT_TRUE(has(ps, "spec.partitioning.nvidia.devices[0].profiles[3g.40gb]", "H100 NVL")) << dump(ps);
}

TEST(SemanticGPUPool, UnpinnedPoolNeedsOneModelThatFits) {
  EXPECT_TRUE(problems_of(pool("{matchLabels: {team: ml}}",
                               "{nvidia: {strategy: mixed, devices: [{profiles: {3g.40gb: 1, 1g.10gb: 2}}]}}"))
                  .empty());
  auto ps = problems_of(
      pool("{matchLabels: {team: ml}}", "{nvidia: {strategy: mixed, devices: [{profiles: {7g.80gb: 1, 1g.10gb: 1}}]}}"));
  EXPECT_TRUE(has(ps, "spec.partitioning.nvidia.devices[0].profiles", "fits no GPU model")) << dump(ps);
}

TEST(SemanticGPUPool, UnknownPinnedModelIsNamed) {
  auto ps = problems_of(pool("{matchLabels: {gpupool.io/gpu-model: a100-typo}}", "{nvidia: {layout: all-1g.10gb}}"));
  EXPECT_TRUE(has(ps, "spec.nodeSelector.matchLabels[gpupool.io/gpu-model]", "not a GPU model of the catalog"))
      << dump(ps);
}

TEST(SemanticGPUPool, BuiltInLayoutsResolvePerModel) {
  EXPECT_TRUE(problems_of(pool("{matchLabels: {gpupool.io/gpu-model: a30-24gb}}", "{nvidia: {layout: all-balanced}}"))
                  .empty());
  auto ps =
      problems_of(pool("{matchLabels: {gpupool.io/gpu-model: a30-24gb}}", "{nvidia: {layout: all-3g.40gb}}"));
  EXPECT_TRUE(has(ps, "spec.partitioning.nvidia.layout", "A30 has no profile 3g.40gb")) << dump(ps);
  ps = problems_of(pool("{matchLabels: {gpupool.io/gpu-model: t4-16gb}}", "{nvidia: {layout: all-1g.10gb}}"));
  EXPECT_TRUE(has(ps, "spec.partitioning.nvidia.layout", "does not support MIG")) << dump(ps);
}

constexpr const char* kNode = R"(apiVersion: gpupool.io/v1alpha1
kind: GPUNode
metadata: {name: n1}
spec:
  nodeName: n1
  partitioning:
    mig:
      - index: 0
        enabled: true
        instances: [{profile: 3g.40gb, placement: 0}, {profile: 4g.40gb, placement: 0}]
      - index: 1
        enabled: true
        instances: [{profile: 4g.40gb}, {profile: 4g.40gb}]
status:
  gpus:
    - {index: 0, model: NVIDIA A100-SXM4-80GB, catalogID: a100-sxm4-80gb}
    - {index: 1, model: NVIDIA A100-SXM4-80GB}
)";

TEST(SemanticGPUNode, LayoutsMustFitTheReportedModel) {
  auto ps = problems_of(kNode);
  EXPECT_TRUE(has(ps, "spec.partitioning.mig[0].instances", "overlap")) << dump(ps);
  EXPECT_TRUE(has(ps, "spec.partitioning.mig[1].instances", "need 8 compute slices")) << dump(ps);
}

TEST(SemanticReferences, ModesDecideWhenReferencesAreChecked) {
  const std::string quota =
      "apiVersion: gpupool.io/v1alpha1\nkind: TenantQuota\nmetadata: {name: q, namespace: a}\n"
      "spec: {poolRef: {name: missing}, resources: {nvidia.com/gpu: 1}}\n";
  EXPECT_TRUE(problems_of(quota).empty());  // no GPUPool given: not checked
  EXPECT_TRUE(has(problems_of(quota, References::require), "spec.poolRef.name", "no GPUPool of that name"));
  const std::string with_pool =
      quota + "---\n" + pool("{matchLabels: {gpupool.io/gpu-model: t4-16gb}}", "{}");
  EXPECT_TRUE(has(problems_of(with_pool), "spec.poolRef.name", "no GPUPool of that name"));
  EXPECT_TRUE(problems_of(with_pool, References::ignore).empty()) << dump(problems_of(with_pool, References::ignore));
}

}  // namespace
