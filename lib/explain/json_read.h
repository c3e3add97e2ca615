// Reading the objects as the API server sent them, tolerant of anything
// missing or of another type (a newer controller may write more): absent
// reads as empty. Private to lib/explain.
#pragma once

#include <rapidjson/document.h>

#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace gpupool::explain::detail {

using Value = rapidjson::Value;
using TimePoint = std::chrono::system_clock::time_point;

const Value* member(const Value* v, const char* key);
const Value* at(const Value* v, std::initializer_list<const char*> path);
std::string str(const Value* v, std::initializer_list<const char*> path);
std::int64_t integer(const Value* v, std::initializer_list<const char*> path, std::int64_t fallback = 0);
bool boolean(const Value* v, std::initializer_list<const char*> path, bool fallback = false);
// A Kubernetes quantity (a number or a string) as text; "" when absent.
std::string quantity(const Value* v);
// The members of an object value in order; empty for anything else.
std::vector<std::pair<std::string, const Value*>> entries(const Value* v);
// The elements of an array value; empty for anything else.
std::vector<const Value*> elements(const Value* v);

struct Condition {
  std::string type, status, reason, message;
  std::int64_t observed_generation = 0;
  std::optional<TimePoint> last_transition;
  bool is_true() const { return status == "True"; }
  bool is_false() const { return status == "False"; }
};
// status.conditions[type == `type`] of `object`.
std::optional<Condition> condition(const Value& object, const char* type);

std::optional<TimePoint> time_at(const Value* v, std::initializer_list<const char*> path);
// How long ago, as kubectl prints ages: 45s, 5m30s, 47m, 3h20m, 30h, 3d4h, 12d.
std::string age(TimePoint now, TimePoint then);
// `text` cut to `max` characters with "..." when longer.
std::string shorten(const std::string& text, std::size_t max);
std::string join(const std::vector<std::string>& parts, const std::string& sep);
// "a, b and 3 more" (at most `max` names).
std::string name_list(const std::vector<std::string>& names, std::size_t max = 5);

// The namespace/name or name of an object.
std::string object_name(const Value& object);

}  // namespace gpupool::explain::detail
