// JSON <-> typed objects for the four gpupool.io/v1alpha1 kinds.
//
// Decoding never throws and never acts on half-understood input: it checks
// apiVersion/kind, every JSON type, enum value, required field, quantity,
// duration and time, and rejects unknown fields (as kubectl's strict field
// validation does; metadata is the exception and keeps only what ObjectMeta
// holds). It collects every error, each with its field path and an
// apiserver-style reason; `value` is set only when there is none. Explicit
// null is the same as an absent field. Bounds, patterns and cross-field rules
// are the schema's and semantic validation's job, not the decoder's.
//
// Encoding writes every field that has a value (absent optionals and empty
// strings, lists and maps whose default is empty are left out; fields whose
// default is not the zero value are always written), keeps the number or
// string form of quantities and int-or-strings, and decode(encode(x)) == x.
#pragma once

#include <optional>
#include <string>

#include "gpupool/api/field_error.h"
#include "gpupool/api/gpunode.h"
#include "gpupool/api/gpupolicy.h"
#include "gpupool/api/gpupool.h"
#include "gpupool/api/tenantquota.h"
#include "rapidjson/document.h"

namespace gpupool::api {

template <class T>
struct Decoded {
  std::optional<T> value;  // set only when errors is empty
  FieldErrors errors;

  bool ok() const { return value.has_value(); }
};

Decoded<GPUPool> decode_gpupool(const rapidjson::Value& json);
Decoded<GPUPolicy> decode_gpupolicy(const rapidjson::Value& json);
Decoded<TenantQuota> decode_tenantquota(const rapidjson::Value& json);
Decoded<GPUNode> decode_gpunode(const rapidjson::Value& json);

// The whole object, apiVersion and kind included.
rapidjson::Value encode(const GPUPool& obj, rapidjson::Document::AllocatorType& alloc);
rapidjson::Value encode(const GPUPolicy& obj, rapidjson::Document::AllocatorType& alloc);
rapidjson::Value encode(const TenantQuota& obj, rapidjson::Document::AllocatorType& alloc);
rapidjson::Value encode(const GPUNode& obj, rapidjson::Document::AllocatorType& alloc);

// encode() written as compact JSON text.
std::string to_json(const GPUPool& obj);
std::string to_json(const GPUPolicy& obj);
std::string to_json(const TenantQuota& obj);
std::string to_json(const GPUNode& obj);

}  // namespace gpupool::api
