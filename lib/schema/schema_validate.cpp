// The structural-schema walk. Each validator applies only to values of its
// kind (pattern to strings, maximum to numbers, ...), as in kube-openapi; a
// type mismatch is reported once and stops the checks below that value.
#include "gpupool/schema/schema_validate.h"

#include <cmath>
#include <limits>
#include <string>

#include "gpupool/api/yaml_json.h"
#include "gpupool/schema/value_format.h"

namespace gpupool::schema {
namespace {

using api::FieldErrors;
using api::FieldPath;

constexpr std::size_t kMaxDepth = 256;

// kube-openapi's swag.IsFloat64AJSONInteger, within +-2^53.
bool is_integer(const rapidjson::Value& v) {
  if (v.IsInt64() || v.IsUint64()) return true;
  if (!v.IsDouble()) return false;
  const double d = v.GetDouble();
  return std::isfinite(d) && std::trunc(d) == d && std::fabs(d) <= 9007199254740992.0;
}

bool type_matches(const SchemaNode& s, const rapidjson::Value& v) {
  if (s.int_or_string) return is_integer(v) || v.IsString();
  if (s.type.empty()) return true;
  if (s.type == "object") return v.IsObject();
  if (s.type == "array") return v.IsArray();
  if (s.type == "string") return v.IsString();
  if (s.type == "integer") return is_integer(v);
  if (s.type == "number") return v.IsNumber();
  if (s.type == "boolean") return v.IsBool();
  return true;
}

class Walker {
 public:
  // In an allOf/anyOf/oneOf/not branch, only value validations apply: the
  // branch's lack of `properties` does not make fields unknown.
  explicit Walker(FieldErrors& errors, bool branch = false) : errors_(errors), branch_(branch) {}

  void value(const SchemaNode& s, const rapidjson::Value& v, const FieldPath& path, std::size_t depth) {
    if (depth > kMaxDepth) {
      add(path, "Invalid value: " + std::string("\"") + json_type(v) + "\": nested too deeply to validate");
      return;
    }
    if (v.IsNull() && (s.nullable || (s.type.empty() && !s.int_or_string))) return;
    if (!type_matches(s, v)) {
      const std::string want = s.int_or_string ? "integer,string" : s.type;
      add(path, "Invalid value: \"" + std::string(json_type(v)) + "\": " + in_body(path) + " must be of type " + want +
                    ": \"" + json_type(v) + "\"");
      return;
    }
    if (s.enum_values && !in_enum(s, v)) enum_error(s, v, path);
    if (v.IsString()) string_checks(s, v, path);
    if (v.IsNumber()) number_checks(s, v, path);
    if (v.IsArray()) array_checks(s, v, path, depth);
    if (v.IsObject()) object_checks(s, v, path, depth, false);
    combinators(s, v, path, depth);
  }

  // The apiserver replaces a null of a field that is not nullable but has a
  // default with that default before it validates (a null without a default
  // stays, and fails the type check): such a field counts as absent. Checked
  // against kube-apiserver v1.37.
  static bool pruned_null(const SchemaNode* child, const rapidjson::Value& value) {
    return value.IsNull() && child != nullptr && !child->nullable && child->has_default;
  }

  const SchemaNode* child_schema(const SchemaNode& s, std::string_view name) const {
    if (const SchemaNode* child = s.property(name)) return child;
    if (s.additional == SchemaNode::Additional::Schema) return s.additional_schema.get();
    return nullptr;
  }

  void object_checks(const SchemaNode& s, const rapidjson::Value& v, const FieldPath& path, std::size_t depth,
                     bool root) {
    std::int64_t count = 0;
    for (const auto& m : v.GetObject()) {
      if (!pruned_null(child_schema(s, std::string_view(m.name.GetString(), m.name.GetStringLength())), m.value)) {
        ++count;
      }
    }
    if (s.min_properties && count < *s.min_properties)
      add(path, "Invalid value: " + std::to_string(count) + ": " + in_body(path) + " should have at least " +
                    std::to_string(*s.min_properties) + " properties");
    if (s.max_properties && count > *s.max_properties)
      add(path, "Too many: " + std::to_string(count) + ": must have at most " + std::to_string(*s.max_properties) +
                    " items");
    const bool implicit_meta = root || s.embedded_resource;
    for (const auto& m : v.GetObject()) {
      const std::string_view name(m.name.GetString(), m.name.GetStringLength());
      if (root && name == "metadata") continue;
      if (pruned_null(child_schema(s, name), m.value)) continue;
      if (const SchemaNode* child = s.property(name)) {
        value(*child, m.value, path.field(name), depth + 1);
      } else if (s.additional == SchemaNode::Additional::Schema) {
        value(*s.additional_schema, m.value, path.key(name), depth + 1);
      } else if (branch_ || s.additional == SchemaNode::Additional::Any || s.preserve_unknown_fields) {
        continue;
      } else if (implicit_meta && (name == "apiVersion" || name == "kind" || name == "metadata")) {
        continue;
      } else {
        const FieldPath p = path.field(name);
        add(p, "unknown field " + go_quote(p.str()));
      }
    }
    for (const auto& r : s.required) {
      const SchemaNode* child = s.property(r);
      if (auto it = v.FindMember(r.c_str()); it != v.MemberEnd() && !pruned_null(child, it->value)) continue;
      if (child != nullptr && child->has_default) continue;  // the apiserver defaults it first
      add(path.field(r), "Required value");
    }
  }

 private:
  void add(const FieldPath& path, std::string reason) { errors_.push_back({path.str(), std::move(reason)}); }

  static std::string in_body(const FieldPath& path) { return (path.str().empty() ? "." : path.str()) + " in body"; }

  static bool in_enum(const SchemaNode& s, const rapidjson::Value& v) {
    const auto& values = *s.enum_values;
    for (rapidjson::SizeType i = 0; i < values.Size(); ++i)
      if (json_equal(values[i], v)) return true;
    return false;
  }

  void enum_error(const SchemaNode& s, const rapidjson::Value& v, const FieldPath& path) {
    std::string supported;
    const auto& values = *s.enum_values;
    for (rapidjson::SizeType i = 0; i < values.Size(); ++i) {
      if (i > 0) supported += ", ";
      const auto& e = values[i];
      supported += go_quote(e.IsString() ? std::string(e.GetString(), e.GetStringLength()) : to_json(e));
    }
    add(path, "Unsupported value: " + format_bad_value(v) + ": supported values: " + supported);
  }

  void string_checks(const SchemaNode& s, const rapidjson::Value& v, const FieldPath& path) {
    const std::string_view str(v.GetString(), v.GetStringLength());
    const auto len = static_cast<std::int64_t>(code_points(str));
    if (s.max_length && len > *s.max_length)
      add(path, "Too long: may not be longer than " + std::to_string(*s.max_length));
    if (s.min_length && len < *s.min_length)
      add(path, "Invalid value: " + format_bad_value(v) + ": " + in_body(path) + " should be at least " +
                    std::to_string(*s.min_length) + " chars long");
    if (s.pattern_re && str.size() <= kMaxPatternInput &&
        !std::regex_search(str.begin(), str.end(), *s.pattern_re))
      add(path, "Invalid value: " + format_bad_value(v) + ": " + in_body(path) + " should match '" + s.pattern + "'");
    if ((s.format == "date-time" && !is_date_time(str)) || (s.format == "date" && !is_date(str)))
      add(path, "Invalid value: " + format_bad_value(v) + ": " + in_body(path) + " must be of type " + s.format +
                    ": " + go_quote(str));
  }

  void number_checks(const SchemaNode& s, const rapidjson::Value& v, const FieldPath& path) {
    const bool integral = is_integer(v);
    const double d = v.GetDouble();
    // kube-openapi prints the bound as an int64 for integer data, %v otherwise.
    auto bound = [&](double b) {
      if (integral && std::fabs(b) < 9.2e18) return std::to_string(static_cast<std::int64_t>(b));
      return api::go_format_float(b);
    };
    if (s.maximum && (s.exclusive_maximum ? d >= *s.maximum : d > *s.maximum))
      add(path, "Invalid value: " + format_bad_value(v) + ": " + in_body(path) + " should be less than " +
                    (s.exclusive_maximum ? "" : "or equal to ") + bound(*s.maximum));
    if (s.minimum && (s.exclusive_minimum ? d <= *s.minimum : d < *s.minimum))
      add(path, "Invalid value: " + format_bad_value(v) + ": " + in_body(path) + " should be greater than " +
                    (s.exclusive_minimum ? "" : "or equal to ") + bound(*s.minimum));
    if (s.format == "int32" && integral &&
        (d > static_cast<double>(std::numeric_limits<std::int32_t>::max()) ||
         d < static_cast<double>(std::numeric_limits<std::int32_t>::min())))
      add(path, "Invalid value: " + format_bad_value(v) + ": " + in_body(path) + " must be of type int32");
    if (s.format == "int64" && v.IsUint64() && !v.IsInt64())
      add(path, "Invalid value: " + format_bad_value(v) + ": " + in_body(path) + " must be of type int64");
  }

  void array_checks(const SchemaNode& s, const rapidjson::Value& v, const FieldPath& path, std::size_t depth) {
    const auto size = static_cast<std::int64_t>(v.Size());
    if (s.min_items && size < *s.min_items)
      add(path, "Invalid value: " + format_bad_value(v) + ": " + in_body(path) + " should have at least " +
                    std::to_string(*s.min_items) + " items");
    if (s.max_items && size > *s.max_items)
      add(path, "Too many: " + std::to_string(size) + ": must have at most " + std::to_string(*s.max_items) +
                    " items");
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
      const FieldPath item_path = path.index(i);
      if (s.items) value(*s.items, v[i], item_path, depth + 1);
      if (s.list_type == "set") {
        for (rapidjson::SizeType j = 0; j < i; ++j) {
          if (json_equal(v[i], v[j])) {
            add(item_path, "Duplicate value: " + format_bad_value(v[i]));
            break;
          }
        }
      } else if (s.list_type == "map" && v[i].IsObject()) {
        map_duplicate(s, v, i, item_path);
      }
    }
  }

  // The item's key fields as {"k":v,...} in x-kubernetes-list-map-keys order.
  static std::string map_key(const SchemaNode& s, const rapidjson::Value& item) {
    std::string out = "{";
    for (const auto& k : s.list_map_keys) {
      const auto it = item.FindMember(k.c_str());
      if (it == item.MemberEnd()) continue;
      if (out.size() > 1) out += ",";
      out += go_quote(k) + ":" + to_json(it->value);
    }
    return out + "}";
  }

  void map_duplicate(const SchemaNode& s, const rapidjson::Value& list, rapidjson::SizeType i, const FieldPath& path) {
    const std::string key = map_key(s, list[i]);
    for (rapidjson::SizeType j = 0; j < i; ++j) {
      if (list[j].IsObject() && map_key(s, list[j]) == key) {
        add(path, "Duplicate value: " + key);
        return;
      }
    }
  }

  FieldErrors branch(const SchemaNode& s, const rapidjson::Value& v, const FieldPath& path, std::size_t depth) {
    FieldErrors errs;
    Walker(errs, true).value(s, v, path, depth + 1);
    return errs;
  }

  void combinators(const SchemaNode& s, const rapidjson::Value& v, const FieldPath& path, std::size_t depth) {
    for (const auto& b : s.all_of) {
      FieldErrors errs = branch(*b, v, path, depth);
      errors_.insert(errors_.end(), errs.begin(), errs.end());
    }
    if (!s.any_of.empty()) {
      // On failure, also report the errors of the closest alternative: one
      // whose type fits the value, then the one with the fewest errors.
      std::optional<FieldErrors> best;
      bool best_type_fits = false;
      for (const auto& b : s.any_of) {
        FieldErrors errs = branch(*b, v, path, depth);
        if (errs.empty()) {
          best.reset();
          break;
        }
        const bool fits = type_matches(*b, v);
        if (!best || (fits && !best_type_fits) || (fits == best_type_fits && errs.size() < best->size())) {
          best = std::move(errs);
          best_type_fits = fits;
        }
      }
      if (best) {
        add(path, "Invalid value: " + format_bad_value(v) + ": " + in_body(path) +
                      " must validate at least one schema (anyOf)");
        errors_.insert(errors_.end(), best->begin(), best->end());
      }
    }
    if (!s.one_of.empty()) {
      std::size_t ok = 0;
      for (const auto& b : s.one_of)
        if (branch(*b, v, path, depth).empty()) ++ok;
      if (ok != 1)
        add(path, "Invalid value: " + format_bad_value(v) + ": " + in_body(path) +
                      " must validate one and only one schema (oneOf)");
    }
    if (s.not_ && branch(*s.not_, v, path, depth).empty())
      add(path, "Invalid value: " + format_bad_value(v) + ": " + in_body(path) + " must not validate the schema (not)");
  }

  FieldErrors& errors_;
  bool branch_ = false;
};

}  // namespace

void validate_value(const SchemaNode& schema, const rapidjson::Value& value, const FieldPath& path,
                    FieldErrors& errors) {
  Walker(errors).value(schema, value, path, 0);
}

void validate_root(const SchemaNode& schema, const rapidjson::Value& object, FieldErrors& errors) {
  if (!object.IsObject()) {
    errors.push_back({"", "Invalid value: \"" + std::string(json_type(object)) + "\": must be of type object"});
    return;
  }
  Walker(errors).object_checks(schema, object, FieldPath(), 0, true);
}

}  // namespace gpupool::schema
