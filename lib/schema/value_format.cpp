#include "gpupool/schema/value_format.h"

#include <cmath>
#include <cstdio>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "gpupool/api/yaml_json.h"

namespace gpupool::schema {

std::string go_quote(std::string_view s) {
  std::string out = "\"";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += ch;
        }
    }
  }
  return out + "\"";
}

std::string to_json(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buf);
  v.Accept(writer);
  return std::string(buf.GetString(), buf.GetSize());
}

std::string format_bad_value(const rapidjson::Value& v) {
  if (v.IsNull()) return "\"null\"";
  if (v.IsString()) return go_quote(std::string_view(v.GetString(), v.GetStringLength()));
  if (v.IsBool()) return v.GetBool() ? "true" : "false";
  if (v.IsInt64()) return std::to_string(v.GetInt64());
  if (v.IsUint64()) return std::to_string(v.GetUint64());
  if (v.IsNumber()) return api::go_format_float(v.GetDouble());
  return to_json(v);
}

std::size_t code_points(std::string_view s) {
  std::size_t n = 0;
  for (const char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

bool json_equal(const rapidjson::Value& a, const rapidjson::Value& b) {
  if (a.IsNumber() && b.IsNumber()) {
    if (a.IsInt64() && b.IsInt64()) return a.GetInt64() == b.GetInt64();
    if (a.IsUint64() && b.IsUint64()) return a.GetUint64() == b.GetUint64();
    return a.GetDouble() == b.GetDouble();
  }
  if (a.GetType() != b.GetType()) return false;
  if (a.IsString())
    return std::string_view(a.GetString(), a.GetStringLength()) == std::string_view(b.GetString(), b.GetStringLength());
  if (a.IsArray()) {
    if (a.Size() != b.Size()) return false;
    for (rapidjson::SizeType i = 0; i < a.Size(); ++i)
      if (!json_equal(a[i], b[i])) return false;
    return true;
  }
  if (a.IsObject()) {
    if (a.MemberCount() != b.MemberCount()) return false;
    for (const auto& m : a.GetObject()) {
      const auto it = b.FindMember(m.name);
      if (it == b.MemberEnd() || !json_equal(m.value, it->value)) return false;
    }
    return true;
  }
  return true;  // null == null, and bools have the same type only when equal
}

const char* json_type(const rapidjson::Value& v) {
  if (v.IsNull()) return "null";
  if (v.IsBool()) return "boolean";
  if (v.IsInt64() || v.IsUint64()) return "integer";
  if (v.IsNumber()) return "number";
  if (v.IsString()) return "string";
  if (v.IsArray()) return "array";
  return "object";
}

}  // namespace gpupool::schema
