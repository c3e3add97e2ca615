// An openAPIV3Schema (as JSON) -> SchemaNode tree.
#pragma once

#include <memory>
#include <string>

#include <rapidjson/document.h>

#include "gpupool/schema/schema_node.h"

namespace gpupool::schema {

// Throws CrdError (crd_schema.h) naming `where` ("...properties.spec.type")
// when a keyword has the wrong JSON type or a value the validator cannot use.
std::unique_ptr<SchemaNode> compile_schema(const rapidjson::Value& schema, const std::string& where);

// Translates the few RE2 spellings ECMAScript lacks (\A, \z); returns null if
// std::regex still cannot compile it.
std::shared_ptr<std::regex> compile_pattern(const std::string& pattern);

}  // namespace gpupool::schema
