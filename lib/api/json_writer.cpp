#include "json_writer.h"

#include "json_number.h"

namespace gpupool::api {

namespace {

rapidjson::Value string_value(std::string_view s, Alloc& alloc) {
  return rapidjson::Value(s.data(), static_cast<rapidjson::SizeType>(s.size()), alloc);
}

}  // namespace

rapidjson::Value encode_value(const std::string& v, Alloc& alloc) { return string_value(v, alloc); }

rapidjson::Value encode_value(bool v, Alloc&) { return rapidjson::Value(v); }

rapidjson::Value encode_value(std::int32_t v, Alloc&) { return rapidjson::Value(v); }

rapidjson::Value encode_value(std::int64_t v, Alloc&) { return rapidjson::Value(v); }

rapidjson::Value encode_value(const QuantityValue& v, Alloc& alloc) {
  if (v.json_number) return json_number_from_text(v.quantity.text(), alloc);
  return string_value(v.quantity.text(), alloc);
}

rapidjson::Value encode_value(const IntOrString& v, Alloc& alloc) {
  if (const auto* i = std::get_if<std::int32_t>(&v.value)) return rapidjson::Value(*i);
  return string_value(std::get<std::string>(v.value), alloc);
}

rapidjson::Value encode_value(const Duration& v, Alloc& alloc) { return string_value(v.text(), alloc); }

rapidjson::Value encode_value(const Time& v, Alloc& alloc) { return string_value(v.text(), alloc); }

}  // namespace gpupool::api
