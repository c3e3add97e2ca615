#include "json_read.h"

#include <cstdio>

#include "gpupool/common/rfc3339.h"

namespace gpupool::explain::detail {

const Value* member(const Value* v, const char* key) {
  if (v == nullptr || !v->IsObject()) return nullptr;
  auto it = v->FindMember(key);
  return it == v->MemberEnd() ? nullptr : &it->value;
}

const Value* at(const Value* v, std::initializer_list<const char*> path) {
  for (const char* key : path) v = member(v, key);
  return v;
}

std::string str(const Value* v, std::initializer_list<const char*> path) {
  const Value* x = at(v, path);
  return x != nullptr && x->IsString() ? std::string(x->GetString(), x->GetStringLength()) : std::string();
}

std::int64_t integer(const Value* v, std::initializer_list<const char*> path, std::int64_t fallback) {
  const Value* x = at(v, path);
  return x != nullptr && x->IsInt64() ? x->GetInt64() : fallback;
}

bool boolean(const Value* v, std::initializer_list<const char*> path, bool fallback) {
  const Value* x = at(v, path);
  return x != nullptr && x->IsBool() ? x->GetBool() : fallback;
}

std::string quantity(const Value* v) {
  if (v == nullptr) return "";
  if (v->IsString()) return std::string(v->GetString(), v->GetStringLength());
  if (v->IsInt64()) return std::to_string(v->GetInt64());
  if (v->IsUint64()) return std::to_string(v->GetUint64());
  if (v->IsNumber()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", v->GetDouble());
    return buf;
  }
  return "";
}

std::vector<std::pair<std::string, const Value*>> entries(const Value* v) {
  std::vector<std::pair<std::string, const Value*>> out;
  if (v == nullptr || !v->IsObject()) return out;
  for (const auto& m : v->GetObject()) out.emplace_back(std::string(m.name.GetString(), m.name.GetStringLength()), &m.value);
  return out;
}

std::vector<const Value*> elements(const Value* v) {
  std::vector<const Value*> out;
  if (v == nullptr || !v->IsArray()) return out;
  for (const auto& x : v->GetArray()) out.push_back(&x);
  return out;
}

std::optional<Condition> condition(const Value& object, const char* type) {
  for (const Value* c : elements(at(&object, {"status", "conditions"}))) {
    if (str(c, {"type"}) != type) continue;
    Condition out;
    out.type = type;
    out.status = str(c, {"status"});
    out.reason = str(c, {"reason"});
    out.message = str(c, {"message"});
    out.observed_generation = integer(c, {"observedGeneration"});
    out.last_transition = time_at(c, {"lastTransitionTime"});
    return out;
  }
  return std::nullopt;
}

std::optional<TimePoint> time_at(const Value* v, std::initializer_list<const char*> path) {
  const std::string text = str(v, path);
  if (text.empty()) return std::nullopt;
  const auto parsed = parse_rfc3339(text);
  if (!parsed) return std::nullopt;
  return to_system_clock(*parsed);
}

std::string age(TimePoint now, TimePoint then) {
  using namespace std::chrono;
  const auto s = std::max<std::int64_t>(duration_cast<seconds>(now - then).count(), 0);
  auto with = [](std::int64_t major, const char* a, std::int64_t minor, const char* b) {
    return std::to_string(major) + a + (minor == 0 ? std::string() : std::to_string(minor) + b);
  };
  if (s < 120) return std::to_string(s) + "s";
  if (s < 600) return with(s / 60, "m", s % 60, "s");
  if (s < 3 * 3600) return std::to_string(s / 60) + "m";
  if (s < 8 * 3600) return with(s / 3600, "h", (s % 3600) / 60, "m");
  if (s < 48 * 3600) return std::to_string(s / 3600) + "h";
  if (s < 8 * 86400) return with(s / 86400, "d", (s % 86400) / 3600, "h");
  return std::to_string(s / 86400) + "d";
}

std::string shorten(const std::string& text, std::size_t max) {
  if (text.size() <= max) return text;
  std::size_t cut = max > 3 ? max - 3 : 0;
  // Never in the middle of a UTF-8 sequence.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : sep) + p;
  return out;
}

std::string name_list(const std::vector<std::string>& names, std::size_t max) {
  if (names.size() <= max) return join(names, ", ");
  std::vector<std::string> first(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(max));
  return join(first, ", ") + " and " + std::to_string(names.size() - max) + " more";
}

std::string object_name(const Value& object) {
  const std::string ns = str(&object, {"metadata", "namespace"});
  const std::string name = str(&object, {"metadata", "name"});
  return ns.empty() ? name : ns + "/" + name;
}

}  // namespace gpupool::explain::detail
