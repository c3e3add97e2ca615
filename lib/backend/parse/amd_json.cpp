#include "amd_json.h"

#include <rapidjson/encodedstream.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>

namespace gpupool::backend::amdsmi::detail {

namespace {

constexpr unsigned kParseFlags = rapidjson::kParseIterativeFlag;

std::string line_column(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "line " + std::to_string(line) + " column " + std::to_string(column);
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Parses one value from text[start..]; returns the offset after it.
std::size_t parse_at(rapidjson::Document& doc, std::string_view text, std::size_t start, bool stop_when_done) {
  const std::string_view rest = text.substr(start);
  rapidjson::MemoryStream ms(rest.data(), rest.size());
  rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> is(ms);
  if (stop_when_done) {
    doc.ParseStream<kParseFlags | rapidjson::kParseStopWhenDoneFlag, rapidjson::UTF8<>>(is);
  } else {
    doc.ParseStream<kParseFlags, rapidjson::UTF8<>>(is);
  }
  if (doc.HasParseError()) {
    throw ReadError("invalid JSON at " + line_column(text, start + doc.GetErrorOffset()) + ": " +
                    rapidjson::GetParseError_En(doc.GetParseError()));
  }
  return start + is.Tell();
}

}  // namespace

std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool is_absent_text(std::string_view s) {
  s = trim(s);
  return s.empty() || iequals(s, "N/A") || iequals(s, "NA") || iequals(s, "None") || iequals(s, "null") ||
         iequals(s, "Not supported") || iequals(s, "unknown");
}

void parse_json(rapidjson::Document& doc, std::string_view text) {
  const std::size_t end = parse_at(doc, text, 0, false);
  if (!trim(text.substr(std::min(end, text.size()))).empty()) {
    throw ReadError("invalid JSON at " + line_column(text, end) + ": unexpected bytes after the JSON value");
  }
}

std::size_t parse_json_prefix(rapidjson::Document& doc, std::string_view text) {
  return parse_at(doc, text, 0, true);
}

std::string type_name(const rapidjson::Value& v) {
  switch (v.GetType()) {
    case rapidjson::kNullType: return "null";
    case rapidjson::kFalseType:
    case rapidjson::kTrueType: return "a boolean";
    case rapidjson::kObjectType: return "an object";
    case rapidjson::kArrayType: return "an array";
    case rapidjson::kStringType: return "a string";
    case rapidjson::kNumberType: return "a number";
  }
  return "an unknown value";
}

std::string describe(const rapidjson::Value& v) {
  if (!v.IsString()) return type_name(v);
  std::string s(v.GetString(), v.GetStringLength());
  if (s.size() > 40) s = s.substr(0, 40) + "...";
  return "\"" + s + "\"";
}

std::vector<Entry> gpu_entries(const rapidjson::Value& root, const char* wrapper) {
  const rapidjson::Value* list = &root;
  std::string base = "$";
  if (root.IsObject()) {
    const rapidjson::Value* inner = member(root, wrapper);
    if (inner == nullptr) {
      throw ReadError(std::string("$: expected an array of GPUs or an object with \"") + wrapper +
                      "\", got an object without it");
    }
    list = inner;
    base = std::string("$.") + wrapper;
  }
  if (!list->IsArray()) throw ReadError(base + ": expected an array of GPUs, got " + type_name(*list));
  if (list->Size() > kMaxGpus) {
    throw ReadError(base + ": " + std::to_string(list->Size()) + " entries exceed the limit of " +
                    std::to_string(kMaxGpus));
  }
  std::vector<Entry> out;
  out.reserve(list->Size());
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const rapidjson::Value& e = (*list)[i];
    std::string path = base + "[" + std::to_string(i) + "]";
    if (!e.IsObject()) throw ReadError(path + ": expected an object, got " + type_name(e));
    out.push_back({&e, std::move(path)});
  }
  return out;
}

const rapidjson::Value* member(const rapidjson::Value& obj, std::string_view key) {
  if (!obj.IsObject()) return nullptr;
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    if (it->name.IsString() && std::string_view(it->name.GetString(), it->name.GetStringLength()) == key) {
      return &it->value;
    }
  }
  return nullptr;
}

const rapidjson::Value* member_ci(const rapidjson::Value& obj, std::string_view key) {
  if (!obj.IsObject()) return nullptr;
  for (auto it = obj.MemberBegin(); it != obj.MemberEnd(); ++it) {
    if (it->name.IsString() && iequals(std::string_view(it->name.GetString(), it->name.GetStringLength()), key)) {
      return &it->value;
    }
  }
  return nullptr;
}

const rapidjson::Value* section(const rapidjson::Value& obj, std::string_view key, const std::string& path) {
  const rapidjson::Value* v = member(obj, key);
  if (v == nullptr || v->IsNull()) return nullptr;
  if (v->IsString() && is_absent_text(std::string_view(v->GetString(), v->GetStringLength()))) return nullptr;
  if (!v->IsObject()) {
    throw ReadError(path + "." + std::string(key) + ": expected an object, got " + describe(*v));
  }
  return v;
}

std::optional<std::string> text(const rapidjson::Value* v, const std::string& path) {
  if (v == nullptr || v->IsNull()) return std::nullopt;
  if (v->IsString()) {
    std::string s(trim(std::string_view(v->GetString(), v->GetStringLength())));
    if (is_absent_text(s)) return std::nullopt;
    return s;
  }
  if (v->IsBool()) return std::string(v->GetBool() ? "true" : "false");
  if (v->IsUint64()) return std::to_string(v->GetUint64());
  if (v->IsInt64()) return std::to_string(v->GetInt64());
  if (v->IsNumber()) {
    const double d = v->GetDouble();
    const auto whole = to_int64(d);
    if (whole && static_cast<double>(*whole) == d) return std::to_string(*whole);
    return std::to_string(d);
  }
  throw ReadError(path + ": expected a string or number, got " + type_name(*v));
}

std::optional<double> to_double(std::string_view s) {
  s = trim(s);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  double d = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(d)) return std::nullopt;
  return d;
}

std::optional<std::int64_t> to_int64(double d) {
  // 2^63 is exactly representable; anything at or beyond it does not fit.
  if (!std::isfinite(d) || d >= 9223372036854775808.0 || d < -9223372036854775808.0) return std::nullopt;
  return static_cast<std::int64_t>(d);
}

std::optional<std::uint32_t> parse_hex_u32(std::string_view s) {
  s = trim(s);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty() || s.size() > 8) return std::nullopt;
  std::uint32_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<Quantity> quantity(const rapidjson::Value* v, const std::string& path) {
  if (v == nullptr || v->IsNull()) return std::nullopt;
  if (v->IsNumber()) {
    const double d = v->GetDouble();
    if (!std::isfinite(d)) throw ReadError(path + ": number out of range");
    return Quantity{d, ""};
  }
  if (v->IsObject()) {
    auto q = quantity(member(*v, "value"), path + ".value");
    if (!q) return std::nullopt;
    if (auto unit = text(member(*v, "unit"), path + ".unit")) q->unit = *unit;
    return q;
  }
  if (v->IsString()) {
    const std::string_view s = trim(std::string_view(v->GetString(), v->GetStringLength()));
    if (is_absent_text(s)) return std::nullopt;
    // A number, then an optional unit after spaces: "65520 MB", "12 %", "55.0 °C", "300W".
    std::size_t n = 0;
    while (n < s.size() && (std::isdigit(static_cast<unsigned char>(s[n])) || s[n] == '.' || s[n] == '-' ||
                            s[n] == '+' || s[n] == 'e' || s[n] == 'E')) {
      ++n;
    }
    // "e"/"E" may begin a unit ("5 EB" never occurs; "300e" is not a number): back off a trailing exponent letter.
    while (n > 0 && (s[n - 1] == 'e' || s[n - 1] == 'E')) --n;
    const auto number = to_double(s.substr(0, n));
    if (!number) throw ReadError(path + ": expected a number, got " + describe(*v));
    return Quantity{*number, std::string(trim(s.substr(n)))};
  }
  throw ReadError(path + ": expected a number, got " + type_name(*v));
}

int index_of(const rapidjson::Value& entry, std::string_view key, const std::string& path) {
  const rapidjson::Value* v = member(entry, key);
  const std::string where = path + "." + std::string(key);
  if (v == nullptr) throw ReadError(where + ": missing GPU index");
  std::optional<double> d;
  if (v->IsNumber()) {
    d = v->GetDouble();
  } else if (v->IsString()) {
    d = to_double(std::string_view(v->GetString(), v->GetStringLength()));
  }
  if (!d || *d < 0 || *d > 1e6 || std::floor(*d) != *d) {
    throw ReadError(where + ": expected a GPU index (a non-negative integer), got " + describe(*v));
  }
  return static_cast<int>(*d);
}

std::optional<std::int64_t> to_mib(const Quantity& q, std::string_view default_unit, const std::string& path) {
  const std::string unit = lower(q.unit.empty() ? default_unit : std::string_view(q.unit));
  double factor = 0;
  if (unit == "b" || unit == "bytes") {
    factor = 1.0 / (1024.0 * 1024.0);
  } else if (unit == "kb" || unit == "kib") {
    factor = 1.0 / 1024.0;
  } else if (unit == "mb" || unit == "mib") {
    factor = 1.0;
  } else if (unit == "gb" || unit == "gib") {
    factor = 1024.0;
  } else if (unit == "tb" || unit == "tib") {
    factor = 1024.0 * 1024.0;
  } else {
    throw ReadError(path + ": unknown memory unit \"" + q.unit.substr(0, 16) + "\"");
  }
  const auto mib = to_int64(q.value * factor);
  if (!mib || *mib < 0) throw ReadError(path + ": memory size out of range");
  return mib;
}

namespace {

// value * factor rounded to an integer in [0, 2^62], else ReadError.
std::int64_t scaled(double value, double factor, const std::string& path, const char* what) {
  const double v = value * factor;
  if (!std::isfinite(v) || v < -0.5 || v > 4.6e18) throw ReadError(path + ": " + what + " out of range");
  return static_cast<std::int64_t>(std::llround(v));
}

}  // namespace

std::optional<std::int64_t> to_millijoules(const Quantity& q, std::string_view default_unit, const std::string& path) {
  const std::string unit = lower(q.unit.empty() ? default_unit : std::string_view(q.unit));
  double factor = 0;
  if (unit == "j") {
    factor = 1000.0;
  } else if (unit == "mj") {
    factor = 1.0;
  } else if (unit == "uj" || unit == "\xc2\xb5j" || unit == "\xce\xbcj") {  // uJ, µJ (micro sign or Greek mu)
    factor = 0.001;
  } else {
    throw ReadError(path + ": unknown energy unit \"" + q.unit.substr(0, 16) + "\"");
  }
  return scaled(q.value, factor, path, "energy");
}

std::optional<std::int64_t> to_mhz(const Quantity& q, const std::string& path) {
  const std::string unit = lower(q.unit);
  double factor = 0;
  if (unit.empty() || unit == "mhz") {
    factor = 1.0;
  } else if (unit == "ghz") {
    factor = 1000.0;
  } else if (unit == "khz") {
    factor = 0.001;
  } else if (unit == "hz") {
    factor = 0.000001;
  } else {
    throw ReadError(path + ": unknown clock unit \"" + q.unit.substr(0, 16) + "\"");
  }
  return scaled(q.value, factor, path, "clock");
}

void sort_unique_gpus(std::vector<GpuInfo>& gpus, std::string_view what) {
  std::sort(gpus.begin(), gpus.end(), [](const GpuInfo& a, const GpuInfo& b) { return a.index < b.index; });
  for (std::size_t i = 1; i < gpus.size(); ++i) {
    if (gpus[i].index == gpus[i - 1].index) {
      throw ReadError(std::string(what) + " " + std::to_string(gpus[i].index) + " is listed twice");
    }
  }
}

}  // namespace gpupool::backend::amdsmi::detail
