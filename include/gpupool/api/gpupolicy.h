// GPUPolicy (cluster-scoped): quota, health and upgrade rules that pools
// reference by name. docs/api.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/api/common_types.h"
#include "gpupool/api/meta.h"
#include "gpupool/api/quantity.h"

namespace gpupool::api {

enum class ApprovalMode { automatic, manual };
GPUPOOL_API_ENUM_NAMES(ApprovalMode, {ApprovalMode::automatic, "Automatic"}, {ApprovalMode::manual, "Manual"})

enum class HealthAction { none, taint, cordon };
GPUPOOL_API_ENUM_NAMES(HealthAction, {HealthAction::none, "None"}, {HealthAction::taint, "Taint"},
                       {HealthAction::cordon, "Cordon"})

// What a MIG partition's share of gpupool.io/gpu is measured by: its compute
// slices over the GPU's, or the memory the GPU reports for the instance over
// the GPU's memory.
enum class ChargeBasis { compute, memory };
GPUPOOL_API_ENUM_NAMES(ChargeBasis, {ChargeBasis::compute, "Compute"}, {ChargeBasis::memory, "Memory"})

// What happens to running pods when their guarantee shrinks or ends: they
// keep running, or those above what remains granted are evicted.
enum class GuaranteeLossAction { keep, evict };
GPUPOOL_API_ENUM_NAMES(GuaranteeLossAction, {GuaranteeLossAction::keep, "Keep"},
                       {GuaranteeLossAction::evict, "Evict"})

struct Borrowing {
  bool enabled = false;
  std::int32_t limit_percent = 0;

  bool operator==(const Borrowing&) const = default;
};

struct FairShare {
  std::int32_t default_weight = 1;
  std::map<std::string, std::int32_t> weights;  // namespace -> weight

  bool operator==(const FairShare&) const = default;
};

// When a TenantQuota's expiresAt passes.
struct Expiry {
  GuaranteeLossAction action = GuaranteeLossAction::keep;
  Duration grace_period = Duration::literal("10m");  // before Evict evicts

  bool operator==(const Expiry&) const = default;
};

struct QuotaRules {
  std::optional<LabelSelector> namespace_selector;  // nil: all namespaces
  std::vector<std::string> namespaces;
  ApprovalMode approval = ApprovalMode::automatic;
  std::map<std::string, QuantityValue> max_per_tenant;
  std::map<std::string, QuantityValue> reserve;  // kept back from guarantees
  Borrowing borrowing;
  FairShare fair_share;
  Duration reclaim_grace_period = Duration::literal("5m");
  bool partial_grants = true;  // false: a request is granted whole or not at all
  ChargeBasis charge_basis = ChargeBasis::compute;
  GuaranteeLossAction on_capacity_loss = GuaranteeLossAction::keep;
  Expiry expiry;
  // DRA DeviceClass name -> the resource name one device of it is charged as.
  std::map<std::string, std::string> device_classes;

  bool operator==(const QuotaRules&) const = default;
};

struct XIDRule {
  std::vector<std::int32_t> codes;           // required
  HealthAction action = HealthAction::none;  // required

  bool operator==(const XIDRule&) const = default;
};

struct TemperatureRule {
  std::int32_t warning_celsius = 0;   // required
  std::int32_t critical_celsius = 0;  // required
  HealthAction action = HealthAction::taint;

  bool operator==(const TemperatureRule&) const = default;
};

struct ECCRule {
  std::int32_t correctable_errors_per_day = 1000;
  std::int32_t uncorrectable_errors = 1;
  HealthAction action = HealthAction::cordon;

  bool operator==(const ECCRule&) const = default;
};

// GPUPolicy.spec.health, and its copy in GPUNode.spec.health (the agent
// judges its GPUs by it; maxUnhealthyNodes is not used there). What the rules
// mean: include/gpupool/pool/gpu_health.h (agent) and health_remediation.h
// (controller).
struct HealthRules {
  std::vector<XIDRule> xids;  // JSON "xids"
  std::optional<TemperatureRule> temperature;
  std::optional<ECCRule> ecc;
  // A GPU stays Unhealthy (or Degraded) until every cause has been gone this
  // long: an XID for this long after its last occurrence, a temperature or ECC
  // count for this long below its threshold. Then the node's taint or cordon
  // is cleared.
  Duration recovery_period = Duration::literal("10m");
  // Most nodes of a pool taken out (tainted or cordoned) for GPU health at
  // once: an integer >= 0 or "0%".."100%" of the pool's nodes (rounded down,
  // at least one node when above 0% and the pool has nodes). Nodes beyond it
  // are reported, not taken out.
  IntOrString max_unhealthy_nodes = "10%";

  bool operator==(const HealthRules&) const = default;
};

struct GPUPolicySpec {
  std::optional<QuotaRules> quota;
  std::optional<HealthRules> health;
  std::optional<UpgradeStrategy> upgrade;  // default upgrade rules for referencing pools

  bool operator==(const GPUPolicySpec&) const = default;
};

struct GPUPolicyStatus {
  std::int64_t observed_generation = 0;
  std::vector<Condition> conditions;  // Ready
  std::vector<std::string> pools;     // pools referencing it

  bool operator==(const GPUPolicyStatus&) const = default;
};

struct GPUPolicy {
  ObjectMeta metadata;
  GPUPolicySpec spec;  // optional in JSON: every part has a default
  std::optional<GPUPolicyStatus> status;

  bool operator==(const GPUPolicy&) const = default;
};

}  // namespace gpupool::api
