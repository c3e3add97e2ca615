#include "gpupool/kube/object.h"

#include <algorithm>

#include "gpupool/kube/client.h"
#include "gpupool/kube/errors.h"

namespace gpupool::kube {

namespace {

std::size_t aligned(std::size_t n) { return n == 0 ? 0 : (n + 7) & ~std::size_t{7}; }

// RapidJSON (x86-64, 48-bit pointers) keeps strings of up to 13 characters
// inside the value; longer ones take length + 1 bytes of the allocator.
constexpr std::size_t kInlineStringMax = 13;

std::size_t string_size(rapidjson::SizeType length) { return length <= kInlineStringMax ? 0 : aligned(length + 1); }

// True when it took anything out.
bool drop_managed_fields(rapidjson::Value& doc, const DecodeTrim& trim, rapidjson::Document::AllocatorType& a) {
  auto meta = doc.FindMember("metadata");
  if (meta == doc.MemberEnd() || !meta->value.IsObject()) return false;
  auto fields = meta->value.FindMember("managedFields");
  if (fields == meta->value.MemberEnd()) return false;
  if (!trim.keep_managers_prefix.empty() && fields->value.IsArray()) {
    rapidjson::Value kept(rapidjson::kArrayType);
    for (auto& entry : fields->value.GetArray()) {
      if (!entry.IsObject()) continue;
      auto manager = entry.FindMember("manager");
      if (manager != entry.MemberEnd() && manager->value.IsString() &&
          std::string_view(manager->value.GetString(), manager->value.GetStringLength()).starts_with(trim.keep_managers_prefix)) {
        kept.PushBack(entry.Move(), a);
      }
    }
    if (!kept.Empty()) {
      fields->value = std::move(kept);
      return true;
    }
  }
  // Absent rather than empty: the server keeps its own when a write omits it.
  meta->value.EraseMember(fields);
  return true;
}

// Leaves in each status.conditions entry only trim.condition_members.
bool trim_conditions(rapidjson::Value& doc, const DecodeTrim& trim) {
  if (trim.condition_members.empty()) return false;
  auto status = doc.FindMember("status");
  if (status == doc.MemberEnd() || !status->value.IsObject()) return false;
  auto conditions = status->value.FindMember("conditions");
  if (conditions == status->value.MemberEnd() || !conditions->value.IsArray()) return false;
  bool dropped = false;
  for (auto& c : conditions->value.GetArray()) {
    if (!c.IsObject()) continue;
    for (auto m = c.MemberBegin(); m != c.MemberEnd();) {
      const std::string_view name(m->name.GetString(), m->name.GetStringLength());
      if (std::find(trim.condition_members.begin(), trim.condition_members.end(), name) != trim.condition_members.end()) {
        ++m;
      } else {
        m = c.EraseMember(m);
        dropped = true;
      }
    }
  }
  return dropped;
}

// Takes out what path[at..] names under v; true when it took anything out.
bool drop_path(rapidjson::Value& v, const std::vector<std::string>& path, std::size_t at) {
  if (at >= path.size()) return false;
  const std::string& step = path[at];
  const bool last = at + 1 == path.size();
  if (step == "*") {
    if (last || !v.IsArray()) return false;
    bool dropped = false;
    for (auto& e : v.GetArray()) dropped = drop_path(e, path, at + 1) || dropped;
    return dropped;
  }
  if (!v.IsObject()) return false;
  auto m = v.FindMember(rapidjson::StringRef(step.data(), static_cast<rapidjson::SizeType>(step.size())));
  if (m == v.MemberEnd()) return false;
  if (!last) return drop_path(m->value, path, at + 1);
  v.EraseMember(m);
  return true;
}

// trim.status_members (each the path status.<member>) and trim.drop_paths.
bool drop_paths(rapidjson::Value& doc, const DecodeTrim& trim) {
  bool dropped = false;
  for (const auto& member : trim.status_members) dropped = drop_path(doc, {"status", member}, 0) || dropped;
  for (const auto& path : trim.drop_paths) dropped = drop_path(doc, path, 0) || dropped;
  return dropped;
}

}  // namespace

std::size_t copy_size(const rapidjson::Value& v) {
  std::size_t n = 0;
  if (v.IsObject()) {
    n += aligned(std::size_t{v.MemberCount()} * sizeof(rapidjson::Value::Member));
    for (const auto& m : v.GetObject()) n += string_size(m.name.GetStringLength()) + copy_size(m.value);
  } else if (v.IsArray()) {
    n += aligned(std::size_t{v.Size()} * sizeof(rapidjson::Value));
    for (const auto& e : v.GetArray()) n += copy_size(e);
  } else if (v.IsString()) {
    n += string_size(v.GetStringLength());
  }
  return n;
}

Object decode_object(std::string_view json) { return decode_object(json, DecodeTrim{}); }

Object decode_object(std::string_view json, const DecodeTrim& trim) {
  Object o;
  {
    rapidjson::Document parsed = parse_json(json);
    if (!parsed.IsObject()) throw DecodeError("object: not a JSON object");
    bool trimmed = trim.managed_fields && drop_managed_fields(parsed, trim, parsed.GetAllocator());
    trimmed = trim_conditions(parsed, trim) || trimmed;
    trimmed = drop_paths(parsed, trim) || trimmed;
    if (trim.take_part) {
      o.part = trim.take_part(parsed);
      trimmed = true;
    }
    // A copy into one block of exactly the copy's size: what the parse took
    // (the parser, like a copy, makes no spare room), unless values were
    // taken out since (their bytes stay in the parse's allocator).
    const std::size_t size = trimmed ? copy_size(parsed) : parsed.GetAllocator().Size();
    o.allocator = std::make_unique<rapidjson::MemoryPoolAllocator<>>(std::max<std::size_t>(size, 64));
    o.doc = rapidjson::Document(o.allocator.get());
    o.doc.CopyFrom(parsed, *o.allocator);
  }
  auto meta = o.doc.FindMember("metadata");
  if (meta == o.doc.MemberEnd() || !meta->value.IsObject()) throw DecodeError("object: metadata missing");
  o.ns = string_at(meta->value, {"namespace"});
  o.name = string_at(meta->value, {"name"});
  if (o.name.empty()) throw DecodeError("object: metadata.name missing");
  o.uid = string_at(meta->value, {"uid"});
  o.resource_version = string_at(meta->value, {"resourceVersion"});
  if (auto g = meta->value.FindMember("generation"); g != meta->value.MemberEnd() && g->value.IsInt64()) {
    o.generation = g->value.GetInt64();
  }
  o.deleting = meta->value.HasMember("deletionTimestamp") && !meta->value["deletionTimestamp"].IsNull();
  return o;
}

std::string object_key(std::string_view ns, std::string_view name) {
  std::string key;
  key.reserve(ns.size() + name.size() + 1);
  if (!ns.empty()) key.append(ns).append("/");
  key.append(name);
  return key;
}

}  // namespace gpupool::kube
