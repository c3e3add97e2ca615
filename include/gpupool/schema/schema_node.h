// One OpenAPI v3 schema of a CRD version, compiled once into a tree that the
// validator walks (see crd_schema.h for what is checked and how).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <rapidjson/document.h>

namespace gpupool::schema {

struct SchemaNode {
  std::string type;  // object, array, string, integer, number, boolean; "" = any
  std::string format;
  bool nullable = false;
  bool has_default = false;
  bool preserve_unknown_fields = false;
  bool int_or_string = false;
  bool embedded_resource = false;

  // properties in schema order; property_index maps a name to its position.
  std::vector<std::pair<std::string, std::unique_ptr<SchemaNode>>> properties;
  std::map<std::string, std::size_t, std::less<>> property_index;
  std::vector<std::string> required;
  // additionalProperties: absent, true, false, or a schema.
  enum class Additional { Unspecified, Any, Forbidden, Schema };
  Additional additional = Additional::Unspecified;
  std::unique_ptr<SchemaNode> additional_schema;
  std::unique_ptr<SchemaNode> items;

  std::shared_ptr<rapidjson::Document> enum_values;  // a JSON array, or null
  std::optional<double> minimum, maximum;
  bool exclusive_minimum = false, exclusive_maximum = false;
  std::optional<std::int64_t> min_length, max_length, min_items, max_items, min_properties, max_properties;
  std::string pattern;                  // as written in the CRD
  std::shared_ptr<std::regex> pattern_re;  // null when std::regex cannot compile it (then unchecked)
  std::string list_type;                // atomic, set, map
  std::vector<std::string> list_map_keys;

  std::vector<std::unique_ptr<SchemaNode>> all_of, any_of, one_of;
  std::unique_ptr<SchemaNode> not_;

  const SchemaNode* property(std::string_view name) const {
    const auto it = property_index.find(name);
    return it == property_index.end() ? nullptr : properties[it->second].second.get();
  }
};

}  // namespace gpupool::schema
