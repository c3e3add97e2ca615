// Private to lib/api: how a struct gets its JSON codec. A struct's codec file
// lists its fields once, as a template over the visitor:
//
//   template <class V, Like<Taint> T>
//   void fields(V& v, T& t) {
//     v.required("key", t.key);
//     v.optional("value", t.value);
//     v.required("effect", t.effect);
//   }
//   GPUPOOL_API_STRUCT_CODEC(Taint)
//
// ObjectDecoder reads the fields (and reports unknown ones), ObjectEncoder
// writes them. The decode_value/encode_value overloads the macro defines are
// declared with GPUPOOL_API_DECLARE_STRUCT_CODEC where other files need them
// (shared_codecs.h) or at the top of the file that defines them.
#pragma once

#include <concepts>
#include <type_traits>

#include "json_reader.h"
#include "json_writer.h"

namespace gpupool::api {

// T is U or const U: one field list serves decoding (U&) and encoding (const U&).
template <class T, class U>
concept Like = std::same_as<std::remove_const_t<T>, U>;

template <class T>
void decode_struct(const Value& v, const FieldPath& path, FieldErrors& errors, T& out,
                   ObjectDecoder::Mode mode = ObjectDecoder::Mode::strict) {
  ObjectDecoder d(v, path, errors, mode);
  if (!d.is_object()) return;
  fields(d, out);
  d.finish();
}

template <class T>
rapidjson::Value encode_struct(const T& in, Alloc& alloc) {
  ObjectEncoder e(alloc);
  fields(e, in);
  return e.take();
}

}  // namespace gpupool::api

#define GPUPOOL_API_DECLARE_STRUCT_CODEC(Type)                                                       \
  void decode_value(const ::rapidjson::Value& v, const FieldPath& path, FieldErrors& errors, Type& out); \
  ::rapidjson::Value encode_value(const Type& in, Alloc& alloc);

#define GPUPOOL_API_STRUCT_CODEC(Type)                                                                \
  void decode_value(const ::rapidjson::Value& v, const FieldPath& path, FieldErrors& errors, Type& out) { \
    decode_struct(v, path, errors, out);                                                              \
  }                                                                                                   \
  ::rapidjson::Value encode_value(const Type& in, Alloc& alloc) { return encode_struct(in, alloc); }
