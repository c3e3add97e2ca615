#include "json_reader.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "json_number.h"

namespace gpupool::api {

namespace json {

std::string_view type_name(const Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType:
      return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType:
      return "boolean";
    case rapidjson::kObjectType:
      return "object";
    case rapidjson::kArrayType:
      return "array";
    case rapidjson::kStringType:
      return "string";
    case rapidjson::kNumberType:
      return v.IsInt64() || v.IsUint64() ? "integer" : "number";
  }
  return "unknown";
}

std::string quote(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

std::string_view as_view(const Value& string_value) {
  return {string_value.GetString(), string_value.GetStringLength()};
}

void add_error(FieldErrors& errors, const FieldPath& path, std::string reason) {
  errors.push_back(FieldError{path.str(), std::move(reason)});
}

void type_error(FieldErrors& errors, const FieldPath& path, const Value& v, std::string_view expected) {
  add_error(errors, path,
            "Invalid value: " + quote(type_name(v)) + ": must be of type " + std::string(expected));
}

void unsupported_value(FieldErrors& errors, const FieldPath& path, std::string_view value,
                       std::span<const std::string_view> supported) {
  std::string reason = "Unsupported value: " + quote(value) + ": supported values: ";
  for (std::size_t i = 0; i < supported.size(); ++i) {
    if (i > 0) reason += ", ";
    reason += quote(supported[i]);
  }
  add_error(errors, path, std::move(reason));
}

}  // namespace json

namespace {

// An integer within [lo, hi], from a JSON integer or an integral number
// (5.0): kube-apiserver's schema check accepts both as "integer".
template <class Int>
void decode_integer(const Value& v, const FieldPath& path, FieldErrors& errors, Int& out, std::string_view type) {
  constexpr auto lo = std::numeric_limits<Int>::min();
  if (v.IsInt64()) {
    const std::int64_t i = v.GetInt64();
    if (std::in_range<Int>(i)) {
      out = static_cast<Int>(i);
      return;
    }
  } else if (v.IsUint64()) {
    // Above int64: out of range for every field.
  } else if (v.IsDouble()) {
    const double d = v.GetDouble();
    // The bounds are exact doubles (powers of two) for int32 and int64.
    if (std::isfinite(d) && d == std::trunc(d) && d >= static_cast<double>(lo) && d < -static_cast<double>(lo)) {
      out = static_cast<Int>(d);
      return;
    }
    if (!std::isfinite(d) || d != std::trunc(d)) return json::type_error(errors, path, v, "integer");
  } else {
    return json::type_error(errors, path, v, "integer");
  }
  json::add_error(errors, path,
                  "Invalid value: " + json_number_text(v) + ": must be a " + std::string(type) + " integer");
}

}  // namespace

void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, std::string& out) {
  if (!v.IsString()) return json::type_error(errors, path, v, "string");
  out.assign(v.GetString(), v.GetStringLength());
}

void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, bool& out) {
  if (!v.IsBool()) return json::type_error(errors, path, v, "boolean");
  out = v.GetBool();
}

void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, std::int32_t& out) {
  decode_integer(v, path, errors, out, "32-bit");
}

void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, std::int64_t& out) {
  decode_integer(v, path, errors, out, "64-bit");
}

void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, QuantityValue& out) {
  std::string text;
  if (v.IsString()) {
    text = json::as_view(v);
  } else if (v.IsNumber() && (v.IsInt64() || v.IsUint64() || json_number_is_integral(v))) {
    text = json_number_text(v);
  } else {
    return json::type_error(errors, path, v, "integer or string");
  }
  auto parsed = parse_quantity(text);
  if (!parsed) return json::add_error(errors, path, "Invalid value: " + json::quote(text) + ": " + parsed.error);
  out.quantity = std::move(*parsed.value);
  out.json_number = !v.IsString();
}

void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, IntOrString& out) {
  if (v.IsString()) {
    out.value = std::string(json::as_view(v));
    return;
  }
  if (!v.IsNumber()) return json::type_error(errors, path, v, "integer or string");
  std::int32_t i = 0;
  const std::size_t before = errors.size();
  decode_integer(v, path, errors, i, "32-bit");
  if (errors.size() == before) out.value = i;
}

void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, Duration& out) {
  if (!v.IsString()) return json::type_error(errors, path, v, "string");
  auto parsed = Duration::parse(json::as_view(v));
  if (!parsed) {
    return json::add_error(errors, path, "Invalid value: " + json::quote(json::as_view(v)) + ": " + parsed.error);
  }
  out = std::move(*parsed.value);
}

void decode_value(const Value& v, const FieldPath& path, FieldErrors& errors, Time& out) {
  if (!v.IsString()) return json::type_error(errors, path, v, "string");
  auto parsed = Time::parse(json::as_view(v));
  if (!parsed) {
    return json::add_error(errors, path, "Invalid value: " + json::quote(json::as_view(v)) + ": " + parsed.error);
  }
  out = std::move(*parsed.value);
}

ObjectDecoder::ObjectDecoder(const Value& v, FieldPath path, FieldErrors& errors, Mode mode)
    : value_(v), path_(std::move(path)), errors_(errors), mode_(mode), object_(v.IsObject()) {
  if (!object_) json::type_error(errors_, path_, v, "object");
}

const Value* ObjectDecoder::take(std::string_view name) {
  known_.push_back(name);
  if (!object_) return nullptr;
  for (auto m = value_.MemberBegin(); m != value_.MemberEnd(); ++m) {
    if (json::as_view(m->name) == name) return m->value.IsNull() ? nullptr : &m->value;
  }
  return nullptr;
}

void ObjectDecoder::finish() {
  if (!object_) return;
  std::vector<std::string_view> seen;
  for (auto m = value_.MemberBegin(); m != value_.MemberEnd(); ++m) {
    const std::string_view name = json::as_view(m->name);
    const bool known = std::find(known_.begin(), known_.end(), name) != known_.end();
    if (!known) {
      if (mode_ == Mode::strict) json::add_error(errors_, path_.field(name), "unknown field " + json::quote(name));
      continue;
    }
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
      json::add_error(errors_, path_.field(name), "duplicate field " + json::quote(name));
    } else {
      seen.push_back(name);
    }
  }
}

}  // namespace gpupool::api
