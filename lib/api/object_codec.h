// Private to lib/api: the top level of every kind's codec: apiVersion and
// kind, then the kind's own fields (metadata, spec, status), with anything a
// decoder throws turned into an error instead of escaping.
#pragma once

#include <exception>
#include <string>

#include "gpupool/api/codec.h"
#include "gpupool/api/kinds.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"
#include "struct_codec.h"

namespace gpupool::api {

// Reads apiVersion and kind and checks they name `info`.
void decode_type_meta(ObjectDecoder& d, const KindInfo& info);
// Records the exception being handled as an error at the object's root.
void record_internal_error(FieldErrors& errors) noexcept;

template <class T>
Decoded<T> decode_kind(const Value& v) noexcept {
  Decoded<T> result;
  try {
    T obj;
    ObjectDecoder d(v, FieldPath(), result.errors);
    if (d.is_object()) {
      decode_type_meta(d, kind_info<T>());
      fields(d, obj);
      d.finish();
    }
    if (result.errors.empty()) result.value = std::move(obj);
  } catch (...) {
    result.value.reset();
    record_internal_error(result.errors);
  }
  return result;
}

template <class T>
rapidjson::Value encode_kind(const T& obj, Alloc& alloc) {
  ObjectEncoder e(alloc);
  const KindInfo& info = kind_info<T>();
  e.required("apiVersion", std::string(info.api_version));
  e.required("kind", std::string(info.kind));
  fields(e, obj);
  return e.take();
}

template <class T>
std::string to_json_text(const T& obj) {
  rapidjson::Document doc;
  const rapidjson::Value v = encode(obj, doc.GetAllocator());
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buf);
  v.Accept(writer);
  return {buf.GetString(), buf.GetSize()};
}

}  // namespace gpupool::api

// decode_<name>, encode and to_json for one kind whose fields() is defined.
#define GPUPOOL_API_KIND_CODEC(Type, name)                                                          \
  Decoded<Type> decode_##name(const rapidjson::Value& json) { return decode_kind<Type>(json); }     \
  rapidjson::Value encode(const Type& obj, Alloc& alloc) { return encode_kind(obj, alloc); }         \
  std::string to_json(const Type& obj) { return to_json_text(obj); }
