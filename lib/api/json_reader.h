// Private to lib/api: typed reading of JSON values with field paths, shared by
// every kind's codec. One overload of decode_value() per field type reads a
// value into its C++ form or records why it cannot (wrong JSON type, unknown
// enum value, bad quantity...). ObjectDecoder reads the fields of one JSON
// object: struct codecs list their fields once (see struct_codec.h) and the
// same list drives ObjectEncoder (json_writer.h).
#pragma once

#include <concepts>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/api/common_types.h"
#include "gpupool/api/duration.h"
#include "gpupool/api/enum_names.h"
#include "gpupool/api/field_error.h"
#include "gpupool/api/meta.h"
#include "gpupool/api/quantity.h"
#include "rapidjson/document.h"

// The decode_value() overloads and the struct codecs live in gpupool::api
// itself, so that the templates here find a struct's overload by
// argument-dependent lookup wherever it is declared. Helpers are in json::.
namespace gpupool::api {

namespace json {

using rapidjson::Value;

// "string", "integer", "number", "boolean", "object", "array", "null".
std::string_view type_name(const Value& v);
// A Go-style quoted string for messages.
std::string quote(std::string_view s);
std::string_view as_view(const Value& string_value);

void add_error(FieldErrors& errors, const FieldPath& path, std::string reason);
// Invalid value: "string": must be of type integer
void type_error(FieldErrors& errors, const FieldPath& path, const Value& v, std::string_view expected);
// Unsupported value: "x": supported values: "a", "b"
void unsupported_value(FieldErrors& errors, const FieldPath& path, std::string_view value,
                       std::span<const std::string_view> supported);

}  // namespace json

using rapidjson::Value;

// Primitive and value types.
void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, std::string& out);
void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, bool& out);
void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, std::int32_t& out);
void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, std::int64_t& out);
void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, QuantityValue& out);
void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, IntOrString& out);
void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, Duration& out);
void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, Time& out);

// Enums, by their enum_names() table.
template <ApiEnum E>
void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, E& out);
// Containers; null elements are type errors, a null container is absent.
template <class T>
void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, std::optional<T>& out);
template <class T>
void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, std::vector<T>& out);
template <class T>
void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, std::map<std::string, T>& out);

template <ApiEnum E>
void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, E& out) {
  if (!v.IsString()) return json::type_error(errors, path, v, "string");
  const std::string_view name = json::as_view(v);
  if (auto e = parse_enum<E>(name)) {
    out = *e;
    return;
  }
  std::vector<std::string_view> names;
  for (const auto& n : enum_values<E>()) names.push_back(n.name);
  json::unsupported_value(errors, path, name, names);
}

template <class T>
void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, std::optional<T>& out) {
  out.emplace();
  decode_value(v, path, errors, *out);
}

template <class T>
void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, std::vector<T>& out) {
  out.clear();
  if (!v.IsArray()) return json::type_error(errors, path, v, "array");
  out.reserve(v.Size());
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    out.emplace_back();
    decode_value(v[i], path.index(i), errors, out.back());
  }
}

template <class T>
void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, std::map<std::string, T>& out) {
  out.clear();
  if (!v.IsObject()) return json::type_error(errors, path, v, "object");
  for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
    std::string key(json::as_view(m->name));
    const FieldPath item = path.key(key);
    auto [it, inserted] = out.try_emplace(std::move(key));
    if (!inserted) {
      json::add_error(errors, item, "Duplicate value: " + json::quote(it->first));
      continue;
    }
    decode_value(m->value, item, errors, it->second);
  }
}

// Reads the fields of one JSON object. Strict objects (everything but
// metadata) also report fields nobody read as unknown; every object reports
// a field given twice.
class ObjectDecoder {
 public:
  enum class Mode { strict, lenient };

  ObjectDecoder(const Value& v, FieldPath path, FieldErrors& errors, Mode mode = Mode::strict);
  ObjectDecoder(const ObjectDecoder&) = delete;
  ObjectDecoder& operator=(const ObjectDecoder&) = delete;

  // False (and a type error recorded) when the value is not an object.
  bool is_object() const { return object_; }
  const FieldPath& path() const { return path_; }
  FieldErrors& errors() { return errors_; }

  // A field that must be present and not null ("Required value" otherwise).
  template <class T>
  void required(std::string_view name, T& out) {
    if (const Value* v = take(name)) {
      decode_value(*v, path_.field(name), errors_, out);
    } else if (object_) {
      json::add_error(errors_, path_.field(name), "Required value");
    }
  }
  // An optional field: absent or null leaves `out` at its default.
  template <class T>
  void optional(std::string_view name, T& out) {
    if (const Value* v = take(name)) decode_value(*v, path_.field(name), errors_, out);
  }
  // Same as optional() when decoding; the encoder writes it even when empty.
  template <class T>
  void always(std::string_view name, T& out) {
    optional(name, out);
  }

  // Reports unknown and duplicate fields; call after reading every field.
  void finish();

 private:
  // The field's value unless absent or null; marks the name as known.
  const Value* take(std::string_view name);

  const Value& value_;
  FieldPath path_;
  FieldErrors& errors_;
  Mode mode_;
  bool object_;
  std::vector<std::string_view> known_;
};

}  // namespace gpupool::api
