// TenantQuota (namespaced, written by tenants): GPU resources a namespace
// asks a pool to guarantee. docs/api.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpupool/api/meta.h"
#include "gpupool/api/quantity.h"

namespace gpupool::api {

enum class QuotaPhase { pending, granted, partially_granted, rejected, expired };
GPUPOOL_API_ENUM_NAMES(QuotaPhase, {QuotaPhase::pending, "Pending"}, {QuotaPhase::granted, "Granted"},
                       {QuotaPhase::partially_granted, "PartiallyGranted"}, {QuotaPhase::rejected, "Rejected"},
                       {QuotaPhase::expired, "Expired"})

struct TenantQuotaSpec {
  LocalObjectReference pool_ref;                         // required: a GPUPool
  std::map<std::string, QuantityValue> resources;        // required: guaranteed
  std::map<std::string, QuantityValue> borrowing_limit;  // keys must be in resources (CEL)
  std::int32_t priority = 0;
  std::vector<std::string> namespaces;  // empty: its own
  std::optional<Time> expires_at;

  bool operator==(const TenantQuotaSpec&) const = default;
};

// What an administrator approved under approval Manual (gpupoolctl approve
// writes it through the status subresource; tenants cannot).
struct ApprovalRecord {
  std::map<std::string, QuantityValue> resources;        // required
  std::map<std::string, QuantityValue> borrowing_limit;  // keys must be in resources (CEL)
  std::int64_t generation = 0;                           // required: the metadata.generation approved
  Time approved_at;                                      // required

  bool operator==(const ApprovalRecord&) const = default;
};

struct TenantQuotaStatus {
  std::int64_t observed_generation = 0;
  std::optional<QuotaPhase> phase;
  std::map<std::string, QuantityValue> granted;
  std::map<std::string, QuantityValue> used;
  std::map<std::string, QuantityValue> borrowed;
  std::map<std::string, QuantityValue> waiting;  // requests of pods held at the admission gate
  std::optional<ApprovalRecord> approved;
  std::vector<Condition> conditions;  // Granted

  bool operator==(const TenantQuotaStatus&) const = default;
};

struct TenantQuota {
  ObjectMeta metadata;
  TenantQuotaSpec spec;
  std::optional<TenantQuotaStatus> status;

  bool operator==(const TenantQuota&) const = default;
};

}  // namespace gpupool::api
