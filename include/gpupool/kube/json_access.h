// Null-safe reading of API objects held as JSON: a missing member, a JSON
// null or a value of another type reads as absent; nothing throws. One copy
// for every reader of objects (agent, controllers, CLI).
#pragma once

#include <rapidjson/document.h>

#include <initializer_list>
#include <string>
#include <string_view>

namespace gpupool::kube {

// v[name] when v is an object holding a non-null `name`; else nullptr (also for v == nullptr).
const rapidjson::Value* member(const rapidjson::Value* v, std::string_view name);
inline const rapidjson::Value* member(const rapidjson::Value& v, std::string_view name) { return member(&v, name); }

// The value at a path of member names ({"status", "capacity"}), or nullptr.
const rapidjson::Value* value_at(const rapidjson::Value& v, std::initializer_list<std::string_view> path);

// The string `v` holds; "" when it is absent or not a string.
std::string string_of(const rapidjson::Value* v);

// Whether the values at `path` in two objects differ: deep comparison (object
// members in any order, arrays in order), nothing serialised, so watch-event
// predicates can call it for every event. Absent and null are equal.
bool differs_at(const rapidjson::Value& a, const rapidjson::Value& b, std::initializer_list<std::string_view> path);

// Whether two objects (either may be absent or not an object: no members)
// differ in a member other than `skipped`, compared as differs_at does (a
// null member counts as absent). For predicates that ignore a writer's own
// fields: a TenantQuota's status but for the usage the admission pass writes.
bool members_differ_except(const rapidjson::Value* a, const rapidjson::Value* b,
                           std::initializer_list<std::string_view> skipped);

}  // namespace gpupool::kube
