// A JSON value against a compiled SchemaNode, collecting field errors in
// document order (see crd_schema.h for the rules and messages).
#pragma once

#include <rapidjson/document.h>

#include "gpupool/api/field_error.h"
#include "gpupool/schema/schema_node.h"

namespace gpupool::schema {

// Strings longer than this are not matched against `pattern`.
inline constexpr std::size_t kMaxPatternInput = 4096;

void validate_value(const SchemaNode& schema, const rapidjson::Value& value, const api::FieldPath& path,
                    api::FieldErrors& errors);

// A whole object: apiVersion, kind and metadata are implicitly allowed and
// metadata is not descended into (crd_validate checks it).
void validate_root(const SchemaNode& schema, const rapidjson::Value& object, api::FieldErrors& errors);

}  // namespace gpupool::schema
