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

struct QuotaRules {
  std::optional<LabelSelector> namespace_selector;  // nil: all namespaces
  std::vector<std::string> namespaces;
  ApprovalMode approval = ApprovalMode::automatic;
  std::map<std::string, QuantityValue> max_per_tenant;
  Borrowing borrowing;
  FairShare fair_share;
  Duration reclaim_grace_period = Duration::literal("5m");

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

struct HealthRules {
  std::vector<XIDRule> xids;  // JSON "xids"
  std::optional<TemperatureRule> temperature;
  std::optional<ECCRule> ecc;

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
