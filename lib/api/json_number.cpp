#include "json_number.h"

#include <charconv>
#include <cmath>
#include <cstdint>

#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace gpupool::api {

namespace {

constexpr double kTwoTo63 = 9223372036854775808.0;

template <class T>
bool parse_whole(std::string_view text, T& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

bool json_number_is_integral(const rapidjson::Value& number) {
  if (number.IsInt64() || number.IsUint64()) return true;
  if (!number.IsDouble()) return false;
  const double d = number.GetDouble();
  return std::isfinite(d) && d == std::trunc(d);
}

std::string json_number_text(const rapidjson::Value& number) {
  if (number.IsInt64()) return std::to_string(number.GetInt64());
  if (number.IsUint64()) return std::to_string(number.GetUint64());
  if (!number.IsNumber()) return {};
  const double d = number.GetDouble();
  if (std::isfinite(d) && d == std::trunc(d) && d >= -kTwoTo63 && d < kTwoTo63) {
    return std::to_string(static_cast<std::int64_t>(d));
  }
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buf);
  if (!writer.Double(d)) return "NaN";  // not from JSON text; never a quantity
  return {buf.GetString(), buf.GetSize()};
}

rapidjson::Value json_number_from_text(std::string_view text, rapidjson::Document::AllocatorType& alloc) {
  rapidjson::Value out;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0;
  if (parse_whole(text, i)) {
    out.SetInt64(i);
  } else if (parse_whole(text, u)) {
    out.SetUint64(u);
  } else if (parse_whole(text, d) && std::isfinite(d)) {
    out.SetDouble(d);
  } else {
    out.SetString(text.data(), static_cast<rapidjson::SizeType>(text.size()), alloc);
  }
  return out;
}

}  // namespace gpupool::api
