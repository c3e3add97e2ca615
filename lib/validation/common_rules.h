// Rules for the types several kinds share (docs/api.md, "Shared types").
// Each appends to `errors` under `path`, the path of the checked value.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <string_view>

#include "gpupool/api/common_types.h"
#include "gpupool/api/field_error.h"
#include "gpupool/api/gpupolicy.h"
#include "gpupool/api/meta.h"
#include "gpupool/api/quantity.h"
#include "gpupool/gpu/catalog.h"

namespace gpupool::validation {

void check_selector(const api::LabelSelector& s, const api::FieldPath& path, api::FieldErrors& errors);
void check_drain(const api::DrainOptions& d, const api::FieldPath& path, api::FieldErrors& errors);
void check_upgrade_strategy(const api::UpgradeStrategy& u, const api::FieldPath& path, api::FieldErrors& errors);
void check_sharing(const api::Sharing& s, const api::FieldPath& path, api::FieldErrors& errors);
void check_installer(const api::DriverInstaller& i, const api::FieldPath& path, api::FieldErrors& errors);
void check_monitoring(const api::Monitoring& m, const api::FieldPath& path, api::FieldErrors& errors);
// GPUPolicy.spec.health and GPUNode.spec.health: an XID code in one rule only,
// critical above warning (CEL), recoveryPeriod 1m..24h, maxUnhealthyNodes an
// integer >= 0 or "0%".."100%" (CEL).
void check_health_rules(const api::HealthRules& h, const api::FieldPath& path, api::FieldErrors& errors);
// Keys are label keys, values label values (the path is the map's: the CRD's
// CEL rule reports there).
void check_label_map(const std::map<std::string, std::string>& labels, const api::FieldPath& path,
                     api::FieldErrors& errors);
// Keys are known GPU resource names (is_known_resource_name) or gpupool.io/gpu,
// values non-negative whole numbers (for gpupool.io/gpu: non-negative, at
// most 3 decimals).
void check_resource_map(const std::map<std::string, api::QuantityValue>& resources, const gpu::Catalog& catalog,
                        const api::FieldPath& path, api::FieldErrors& errors);
// A quota resource name: known to is_known_resource_name, or gpupool.io/gpu.
bool is_quota_resource_name(std::string_view name, const gpu::Catalog& catalog);
// "Unsupported value: "NAME": not a GPU resource name (...)", for a name
// is_quota_resource_name refuses.
std::string unknown_resource_reason(const std::string& name);
// min <= d <= max, else "must be between MIN and MAX".
void check_duration_range(const api::Duration& d, std::chrono::nanoseconds min, std::chrono::nanoseconds max,
                          const api::FieldPath& path, api::FieldErrors& errors);

bool is_label_key(const std::string& key);
bool is_dns1123_label(const std::string& s);
bool is_dns1123_subdomain(const std::string& s);

}  // namespace gpupool::validation
