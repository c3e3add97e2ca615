// Private to lib/api: the encoding half of json_reader.h. encode_value()
// turns a field's C++ value into JSON; ObjectEncoder runs a struct's field
// list (the same one ObjectDecoder runs) and writes each field.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpupool/api/common_types.h"
#include "gpupool/api/duration.h"
#include "gpupool/api/enum_names.h"
#include "gpupool/api/meta.h"
#include "gpupool/api/quantity.h"
#include "rapidjson/document.h"

namespace gpupool::api {

using Alloc = rapidjson::Document::AllocatorType;

rapidjson::Value encode_value(const std::string& v, Alloc& alloc);
rapidjson::Value encode_value(bool v, Alloc& alloc);
rapidjson::Value encode_value(std::int32_t v, Alloc& alloc);
rapidjson::Value encode_value(std::int64_t v, Alloc& alloc);
rapidjson::Value encode_value(const QuantityValue& v, Alloc& alloc);
rapidjson::Value encode_value(const IntOrString& v, Alloc& alloc);
rapidjson::Value encode_value(const Duration& v, Alloc& alloc);
rapidjson::Value encode_value(const Time& v, Alloc& alloc);

template <ApiEnum E>
rapidjson::Value encode_value(E v, Alloc& alloc);
template <class T>
rapidjson::Value encode_value(const std::optional<T>& v, Alloc& alloc);
template <class T>
rapidjson::Value encode_value(const std::vector<T>& v, Alloc& alloc);
template <class T>
rapidjson::Value encode_value(const std::map<std::string, T>& v, Alloc& alloc);

template <ApiEnum E>
rapidjson::Value encode_value(E v, Alloc& alloc) {
  const std::string_view name = to_string(v);
  return rapidjson::Value(name.data(), static_cast<rapidjson::SizeType>(name.size()), alloc);
}

template <class T>
rapidjson::Value encode_value(const std::optional<T>& v, Alloc& alloc) {
  return v ? encode_value(*v, alloc) : rapidjson::Value();
}

template <class T>
rapidjson::Value encode_value(const std::vector<T>& v, Alloc& alloc) {
  rapidjson::Value out(rapidjson::kArrayType);
  out.Reserve(static_cast<rapidjson::SizeType>(v.size()), alloc);
  for (const auto& item : v) out.PushBack(encode_value(item, alloc), alloc);
  return out;
}

template <class T>
rapidjson::Value encode_value(const std::map<std::string, T>& v, Alloc& alloc) {
  rapidjson::Value out(rapidjson::kObjectType);
  for (const auto& [key, item] : v) {
    rapidjson::Value name(key.data(), static_cast<rapidjson::SizeType>(key.size()), alloc);
    out.AddMember(name, encode_value(item, alloc), alloc);
  }
  return out;
}

// What Go's omitempty leaves out: "", 0, false, empty lists and maps, nil.
inline bool is_empty(const std::string& v) { return v.empty(); }
inline bool is_empty(bool v) { return !v; }
inline bool is_empty(std::int32_t v) { return v == 0; }
inline bool is_empty(std::int64_t v) { return v == 0; }
template <class T>
bool is_empty(const std::optional<T>& v) {
  return !v.has_value();
}
template <class T>
bool is_empty(const std::vector<T>& v) {
  return v.empty();
}
template <class T>
bool is_empty(const std::map<std::string, T>& v) {
  return v.empty();
}
// Enums, durations, quantities, times and structs always have a value.
template <class T>
bool is_empty(const T&) {
  return false;
}

// Writes the fields of one JSON object, in the order the field list names them.
class ObjectEncoder {
 public:
  explicit ObjectEncoder(Alloc& alloc) : alloc_(alloc), out_(rapidjson::kObjectType) {}

  // Always written.
  template <class T>
  void required(std::string_view name, const T& v) {
    add(name, encode_value(v, alloc_));
  }
  // Left out when empty (its default is then the empty value too).
  template <class T>
  void optional(std::string_view name, const T& v) {
    if (!is_empty(v)) add(name, encode_value(v, alloc_));
  }
  // Written even when empty: the field's default is not the empty value.
  template <class T>
  void always(std::string_view name, const T& v) {
    add(name, encode_value(v, alloc_));
  }
  rapidjson::Value take() { return std::move(out_); }

 private:
  void add(std::string_view name, rapidjson::Value v) {
    rapidjson::Value key(name.data(), static_cast<rapidjson::SizeType>(name.size()), alloc_);
    out_.AddMember(key, v, alloc_);
  }

  Alloc& alloc_;
  rapidjson::Value out_;
};

}  // namespace gpupool::api
