// The gpupool.io/v1alpha1 kinds: their names and scope as the CRDs declare
// them, and decoding of an object of any of them by its apiVersion and kind.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "gpupool/api/codec.h"

namespace gpupool::api {

inline constexpr std::string_view kGroup = "gpupool.io";
inline constexpr std::string_view kVersion = "v1alpha1";
inline constexpr std::string_view kApiVersion = "gpupool.io/v1alpha1";

struct KindInfo {
  std::string_view kind;        // "GPUPool"
  std::string_view plural;      // "gpupools"
  std::string_view short_name;  // "gpool"
  bool namespaced = false;
  std::string_view group = kGroup;
  std::string_view version = kVersion;
  std::string_view api_version = kApiVersion;
};

inline constexpr KindInfo kGPUPoolKind{"GPUPool", "gpupools", "gpool", false};
inline constexpr KindInfo kGPUPolicyKind{"GPUPolicy", "gpupolicies", "gpol", false};
inline constexpr KindInfo kTenantQuotaKind{"TenantQuota", "tenantquotas", "tq", true};
inline constexpr KindInfo kGPUNodeKind{"GPUNode", "gpunodes", "gnode", false};
inline constexpr std::array<KindInfo, 4> kKinds{kGPUPoolKind, kGPUPolicyKind, kTenantQuotaKind, kGPUNodeKind};

// The table entry for a kind name ("GPUPool"), if it is one of ours.
std::optional<KindInfo> find_kind(std::string_view kind);

template <class T> constexpr const KindInfo& kind_info();
template <> constexpr const KindInfo& kind_info<GPUPool>() { return kGPUPoolKind; }
template <> constexpr const KindInfo& kind_info<GPUPolicy>() { return kGPUPolicyKind; }
template <> constexpr const KindInfo& kind_info<TenantQuota>() { return kTenantQuotaKind; }
template <> constexpr const KindInfo& kind_info<GPUNode>() { return kGPUNodeKind; }

// An object of one of the four kinds, in kKinds order.
using AnyObject = std::variant<GPUPool, GPUPolicy, TenantQuota, GPUNode>;

// Decodes by apiVersion and kind; a missing or other apiVersion, or a kind
// that is not ours, is an error at "apiVersion" / "kind".
Decoded<AnyObject> decode_object(const rapidjson::Value& json);

rapidjson::Value encode(const AnyObject& obj, rapidjson::Document::AllocatorType& alloc);
std::string to_json(const AnyObject& obj);

}  // namespace gpupool::api
