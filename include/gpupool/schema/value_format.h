// How apiserver field errors print values, and the string checks the
// validator needs (formats, DNS-1123 names).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

namespace gpupool::schema {

// Go's %q for a string: "a\"b\n".
std::string go_quote(std::string_view s);
// A field error's bad value as k8s.io/apimachinery's ErrorBody prints it:
// strings quoted, numbers and booleans bare, null as "null", lists and maps as
// compact JSON.
std::string format_bad_value(const rapidjson::Value& v);
// The OpenAPI type name of a JSON value: null, boolean, integer, number, string, array, object.
const char* json_type(const rapidjson::Value& v);
// Compact JSON.
std::string to_json(const rapidjson::Value& v);
// Unicode code points in UTF-8 text (what minLength/maxLength count).
std::size_t code_points(std::string_view s);
// JSON equality, numbers compared by value (1 == 1.0).
bool json_equal(const rapidjson::Value& a, const rapidjson::Value& b);

// kube-openapi's strfmt: date-time (RFC 3339, 't'/'T' separator, 'z'/'Z' or
// ±hh:mm offset, optional fraction) and date (YYYY-MM-DD, a real day).
bool is_date_time(std::string_view s);
bool is_date(std::string_view s);

// "" when valid, else the apiserver's message (k8s.io/apimachinery's
// IsDNS1123Subdomain / IsDNS1123Label), joined with "; ".
std::string dns1123_subdomain_error(std::string_view s);
std::string dns1123_label_error(std::string_view s);

}  // namespace gpupool::schema
