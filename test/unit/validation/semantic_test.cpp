// Semantic rules that the invalid-object table does not spell out: models
// pinned by GFD labels and `In` expressions, unpinned pools, GPUNode layouts
// against the reported GPU models, reference modes, quota maps with GPU units
// and the quota rules tenant quotas need (exact messages).
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

// Quota maps, GPU units and the GPUPolicy quota fields tenant quotas need:
// each case is valid (no problem at all) or has exactly one problem, given
// with its exact reason.
struct QuotaCase {
  std::string name;
  std::string yaml;
  std::string path;    // empty: valid
  std::string reason;
};

std::string policy_quota(const std::string& quota) {
  return "apiVersion: gpupool.io/v1alpha1\nkind: GPUPolicy\nmetadata: {name: p}\nspec:\n  quota: " + quota + "\n";
}

std::string tenant_quota(const std::string& spec_rest, const std::string& status = "") {
  return "apiVersion: gpupool.io/v1alpha1\nkind: TenantQuota\nmetadata: {name: q, namespace: a}\n"
         "spec: {poolRef: {name: p}, " +
         spec_rest + "}\n" + (status.empty() ? "" : "status: " + status + "\n");
}

const std::string kUnknownGpus =
    R"(Unsupported value: "nvidia.com/gpus": not a GPU resource name (nvidia.com/gpu, nvidia.com/gpu.shared, )"
    R"(amd.com/gpu, nvidia.com/mig-<profile> for a profile of a known GPU model, or gpupool.io/gpu for GPUs' worth))";
const std::string kNotMilli = ": must be a non-negative number of GPUs with at most 3 decimals";

TEST(SemanticQuota, Table) {
  const std::vector<QuotaCase> cases = {
      {"policy-every-new-field",
       policy_quota("{maxPerTenant: {gpupool.io/gpu: \"500m\"}, reserve: {gpupool.io/gpu: \"2.5\", nvidia.com/gpu: 2}, "
                    "partialGrants: false, chargeBasis: Memory, onCapacityLoss: Evict, "
                    "expiry: {action: Evict, gracePeriod: 24h}, deviceClasses: {gpu.nvidia.com: nvidia.com/gpu, "
                    "mig-1g.10gb.nvidia.com: nvidia.com/mig-1g.10gb, units.example.com: gpupool.io/gpu, "
                    "gpu.amd.com: amd.com/gpu}}"),
       "", ""},
      {"policy-expiry-grace-zero", policy_quota("{expiry: {gracePeriod: 0s}}"), "", ""},
      {"policy-reserve-micro-gpu", policy_quota("{reserve: {gpupool.io/gpu: 1u}}"), "spec.quota.reserve[gpupool.io/gpu]",
       "Invalid value: \"1u\"" + kNotMilli},
      {"policy-max-per-tenant-ten-thousandth", policy_quota("{maxPerTenant: {gpupool.io/gpu: \"0.0001\"}}"),
       "spec.quota.maxPerTenant[gpupool.io/gpu]", "Invalid value: \"0.0001\"" + kNotMilli},
      {"policy-reserve-negative-gpu", policy_quota("{reserve: {gpupool.io/gpu: \"-1\"}}"),
       "spec.quota.reserve[gpupool.io/gpu]", "Invalid value: \"-1\"" + kNotMilli},
      {"policy-reserve-fractional-device", policy_quota("{reserve: {nvidia.com/gpu: \"2.5\"}}"),
       "spec.quota.reserve[nvidia.com/gpu]", "Invalid value: \"2.5\": must be a non-negative whole number of devices"},
      {"policy-reserve-unknown-name", policy_quota("{reserve: {nvidia.com/gpus: 1}}"),
       "spec.quota.reserve[nvidia.com/gpus]", kUnknownGpus},
      {"policy-expiry-grace-too-long", policy_quota("{expiry: {gracePeriod: 25h}}"), "spec.quota.expiry.gracePeriod",
       "Invalid value: \"25h\": must be between 0s and 24h0m0s"},
      {"policy-device-class-key", policy_quota("{deviceClasses: {GPU_Class: nvidia.com/gpu}}"),
       "spec.quota.deviceClasses",
       "Invalid value: \"GPU_Class\": every key must be a DeviceClass name (a DNS-1123 subdomain)"},
      {"policy-device-class-resource", policy_quota("{deviceClasses: {gpu.nvidia.com: nvidia.com/gpus}}"),
       "spec.quota.deviceClasses[gpu.nvidia.com]", kUnknownGpus},
      {"quota-gpu-units", tenant_quota("resources: {gpupool.io/gpu: \"2.5\", nvidia.com/gpu: 1}, "
                                       "borrowingLimit: {gpupool.io/gpu: 500m}"),
       "", ""},
      {"quota-gpu-units-suffixed", tenant_quota("resources: {gpupool.io/gpu: 1k}"), "", ""},
      {"quota-gpu-unit-ten-thousandth", tenant_quota("resources: {gpupool.io/gpu: \"0.0001\"}"),
       "spec.resources[gpupool.io/gpu]", "Invalid value: \"0.0001\"" + kNotMilli},
      {"quota-borrowing-micro-gpu", tenant_quota("resources: {gpupool.io/gpu: 1}, borrowingLimit: {gpupool.io/gpu: 1u}"),
       "spec.borrowingLimit[gpupool.io/gpu]", "Invalid value: \"1u\"" + kNotMilli},
      {"quota-waiting-and-approved",
       tenant_quota("resources: {gpupool.io/gpu: \"2.5\"}",
                    "{waiting: {gpupool.io/gpu: 500m}, approved: {resources: {gpupool.io/gpu: \"2.5\"}, "
                    "borrowingLimit: {gpupool.io/gpu: 1}, generation: 3, approvedAt: \"2024-05-01T12:00:00Z\"}}"),
       "", ""},
      {"quota-approved-borrowing-unapproved",
       tenant_quota("resources: {nvidia.com/gpu: 2}",
                    "{approved: {resources: {gpupool.io/gpu: 2}, borrowingLimit: {nvidia.com/gpu: 1}, generation: 1, "
                    "approvedAt: \"2024-05-01T12:00:00Z\"}}"),
       "status.approved.borrowingLimit",
       "Invalid value: \"nvidia.com/gpu\": every borrowingLimit key must also be in resources"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name + "\n" + c.yaml);
    const auto ps = problems_of(c.yaml);
    if (c.path.empty()) {
      EXPECT_TRUE(ps.empty()) << dump(ps);
      continue;
    }
    ASSERT_EQ(ps.size(), 1u) << dump(ps);
    EXPECT_EQ(ps[0].path, c.path) << dump(ps);
    EXPECT_EQ(ps[0].reason, c.reason) << dump(ps);
  }
}

}  // namespace

namespace {

// Health rules, in a GPUPolicy and copied into a GPUNode: each case is valid
// or has exactly one problem, given with its exact reason.
std::string policy_health(const std::string& health) {
  return "apiVersion: gpupool.io/v1alpha1\nkind: GPUPolicy\nmetadata: {name: p}\nspec:\n  health: " + health + "\n";
}

std::string node_health(const std::string& health) {
  return "apiVersion: gpupool.io/v1alpha1\nkind: GPUNode\nmetadata: {name: n1}\nspec:\n  nodeName: n1\n  health: " +
         health + "\n";
}

const std::string kLimitReason = ": maxUnhealthyNodes must be an integer >= 0 or a percentage from \"0%\" to \"100%\"";

TEST(SemanticHealth, Table) {
  const std::vector<QuotaCase> cases = {
      {"policy-every-health-field",
       policy_health("{xids: [{codes: [48, 79], action: Cordon}, {codes: [13], action: None}], "
                     "temperature: {warningCelsius: 85, criticalCelsius: 95, action: Taint}, "
                     "ecc: {correctableErrorsPerDay: 0, uncorrectableErrors: 0, action: Taint}, "
                     "recoveryPeriod: 1h30m, maxUnhealthyNodes: \"25%\"}"),
       "", ""},
      {"policy-limit-count", policy_health("{maxUnhealthyNodes: 3}"), "", ""},
      {"policy-limit-zero-reports-only", policy_health("{maxUnhealthyNodes: 0}"), "", ""},
      {"policy-limit-zero-percent", policy_health("{maxUnhealthyNodes: \"0%\"}"), "", ""},
      {"policy-limit-hundred-percent", policy_health("{maxUnhealthyNodes: \"100%\"}"), "", ""},
      {"policy-recovery-bounds", policy_health("{recoveryPeriod: 1m}"), "", ""},
      {"policy-recovery-day", policy_health("{recoveryPeriod: 24h}"), "", ""},
      {"policy-limit-negative", policy_health("{maxUnhealthyNodes: -1}"), "spec.health.maxUnhealthyNodes",
       "Invalid value: -1" + kLimitReason},
      {"policy-limit-over-100-percent", policy_health("{maxUnhealthyNodes: \"101%\"}"),
       "spec.health.maxUnhealthyNodes", "Invalid value: \"101%\"" + kLimitReason},
      {"policy-limit-number-as-string", policy_health("{maxUnhealthyNodes: \"5\"}"), "spec.health.maxUnhealthyNodes",
       "Invalid value: \"5\"" + kLimitReason},
      {"policy-limit-leading-zero", policy_health("{maxUnhealthyNodes: \"05%\"}"), "spec.health.maxUnhealthyNodes",
       "Invalid value: \"05%\"" + kLimitReason},
      {"policy-recovery-too-short", policy_health("{recoveryPeriod: 30s}"), "spec.health.recoveryPeriod",
       "Invalid value: \"30s\": must be between 1m0s and 24h0m0s"},
      {"policy-recovery-too-long", policy_health("{recoveryPeriod: 25h}"), "spec.health.recoveryPeriod",
       "Invalid value: \"25h\": must be between 1m0s and 24h0m0s"},
      {"policy-xid-twice", policy_health("{xids: [{codes: [79], action: Cordon}, {codes: [48, 79], action: Taint}]}"),
       "spec.health.xids[1].codes[1]", "Duplicate value: 79: XID already handled by xids[0]"},
      {"node-health-copied", node_health("{xids: [{codes: [79], action: Cordon}], recoveryPeriod: 10m, "
                                         "maxUnhealthyNodes: \"10%\"}"),
       "", ""},
      {"node-health-recovery-too-short", node_health("{recoveryPeriod: 0s}"), "spec.health.recoveryPeriod",
       "Invalid value: \"0s\": must be between 1m0s and 24h0m0s"},
      {"node-health-critical-below-warning", node_health("{temperature: {warningCelsius: 90, criticalCelsius: 85}}"),
       "spec.health.temperature.criticalCelsius",
       "Invalid value: 85: criticalCelsius must be greater than warningCelsius (90)"},
      {"node-health-xid-twice", node_health("{xids: [{codes: [79, 79], action: Cordon}]}"),
       "spec.health.xids[0].codes[1]", "Duplicate value: 79: XID already handled by xids[0]"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name + "\n" + c.yaml);
    const auto ps = problems_of(c.yaml);
    if (c.path.empty()) {
      EXPECT_TRUE(ps.empty()) << dump(ps);
      continue;
    }
    ASSERT_EQ(ps.size(), 1u) << dump(ps);
    EXPECT_EQ(ps[0].path, c.path) << dump(ps);
    EXPECT_EQ(ps[0].reason, c.reason) << dump(ps);
  }
}

TEST(SemanticHealth, SchemaRefusesTooLongLimits) {
  const auto ps = problems_of(policy_health("{maxUnhealthyNodes: \"1000%\"}"));
  EXPECT_TRUE(has(ps, "spec.health.maxUnhealthyNodes", "Too long")) << dump(ps);
}

}  // namespace
