// yaml-cpp node tree -> RapidJSON value, as sigs.k8s.io/yaml + encoding/json
// would produce it (see yaml_json.h for the rules).
#include "gpupool/api/yaml_json.h"

#include <cmath>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "yaml_scalar.h"

namespace gpupool::api {
namespace {

using detail::YamlNull;
using detail::YamlScalar;

constexpr std::string_view kLongTagPrefix = "tag:yaml.org,2002:";
// Aliases can make a small document expand enormously; stop well before memory runs out.
constexpr std::size_t kMaxValues = 4'000'000;

std::string short_tag(const std::string& tag) {
  if (tag.rfind(kLongTagPrefix, 0) == 0) return "!!" + tag.substr(kLongTagPrefix.size());
  return tag;
}

const char* kind_name(const YamlScalar& v) {
  switch (v.index()) {
    case 0: return "!!null";
    case 1: return "!!bool";
    case 2:
    case 3: return "!!int";
    case 4: return "!!float";
    default: return "!!str";
  }
}

bool is_merge_key(const YAML::Node& key) {
  if (!key.IsScalar() || key.Scalar() != "<<") return false;
  return key.Tag() == "?" || short_tag(key.Tag()) == "!!merge";
}

class Converter {
 public:
  explicit Converter(rapidjson::Document::AllocatorType& allocator) : alloc_(allocator) {}

  rapidjson::Value convert(const YAML::Node& node, std::size_t depth) {
    if (depth > kMaxYamlDepth) fail(node, "YAML nested deeper than " + std::to_string(kMaxYamlDepth) +
                                              " levels (or an alias that refers to itself)");
    if (++values_ > kMaxValues) fail(node, "YAML document expands to more than " + std::to_string(kMaxValues) +
                                               " values (through aliases)");
    switch (node.Type()) {
      case YAML::NodeType::Map: return convert_map(node, depth);
      case YAML::NodeType::Sequence: {
        rapidjson::Value arr(rapidjson::kArrayType);
        for (const auto& child : node) arr.PushBack(convert(child, depth + 1), alloc_);
        return arr;
      }
      case YAML::NodeType::Scalar:
      case YAML::NodeType::Null: return to_json(resolve(node), node);
      case YAML::NodeType::Undefined: break;
    }
    return rapidjson::Value();  // an undefined node (absent document) is null
  }

 private:
  [[noreturn]] static void fail(const YAML::Node& node, const std::string& message) {
    const YAML::Mark mark = node.Mark();
    const int line = mark.line < 0 ? 0 : mark.line + 1;
    const int column = mark.column < 0 ? 0 : mark.column + 1;
    std::string where = line > 0 ? "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " : "";
    throw YamlJsonError(where + message, line, column);
  }

  // go-yaml's resolve() with the node's tag.
  static YamlScalar resolve(const YAML::Node& node) {
    if (node.Type() == YAML::NodeType::Null) return YamlNull{};
    const std::string& text = node.Scalar();
    const std::string& raw_tag = node.Tag();
    if (raw_tag == "?") return detail::yaml_resolve_plain(text);
    const std::string tag = short_tag(raw_tag);
    if (tag == "!!null" || tag == "!!bool" || tag == "!!int" || tag == "!!float") {
      YamlScalar v = detail::yaml_resolve_plain(text);
      if (tag == "!!float") {
        if (const auto* i = std::get_if<std::int64_t>(&v)) v = static_cast<double>(*i);
        if (const auto* u = std::get_if<std::uint64_t>(&v)) v = static_cast<double>(*u);
      }
      const std::string got = kind_name(v);
      if (got != tag) fail(node, "cannot decode " + got + " `" + text + "` as a " + tag);
      return v;
    }
    // "!" (quoted and block scalars), !!str, !!binary, !!timestamp and
    // application tags: go-yaml keeps the text as a string.
    return text;
  }

  rapidjson::Value to_json(const YamlScalar& v, const YAML::Node& node) {
    rapidjson::Value out;
    switch (v.index()) {
      case 0: break;
      case 1: out.SetBool(std::get<bool>(v)); break;
      case 2: out.SetInt64(std::get<std::int64_t>(v)); break;
      case 3: out.SetUint64(std::get<std::uint64_t>(v)); break;
      case 4: {
        const double d = std::get<double>(v);
        if (!std::isfinite(d))
          fail(node, "json: unsupported value: " + go_format_float(d) + " (YAML `" + node.Scalar() +
                         "` has no JSON form)");
        // encoding/json prints 3.0 as 3, which kube-apiserver reads back as an integer.
        if (d == std::trunc(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
          out.SetInt64(static_cast<std::int64_t>(d));
        } else {
          out.SetDouble(d);
        }
        break;
      }
      default: {
        const auto& s = std::get<std::string>(v);
        out.SetString(s.data(), static_cast<rapidjson::SizeType>(s.size()), alloc_);
      }
    }
    return out;
  }

  // sigs.k8s.io/yaml's stringification of a resolved key.
  static std::string key_string(const YAML::Node& key) {
    if (!key.IsScalar() && !key.IsNull()) fail(key, "invalid map key: a YAML list or map cannot be a JSON key");
    const YamlScalar v = resolve(key);
    switch (v.index()) {
      case 0: fail(key, "invalid map key: null cannot be a JSON key");
      case 1: return std::get<bool>(v) ? "true" : "false";
      case 2: return std::to_string(std::get<std::int64_t>(v));
      case 3: return std::to_string(std::get<std::uint64_t>(v));
      case 4: {
        const double d = std::get<double>(v);
        if (std::isnan(d)) return ".nan";
        if (std::isinf(d)) return d > 0 ? ".inf" : "-.inf";
        return go_format_float(d, 32);
      }
      default: return std::get<std::string>(v);
    }
  }

  void add_member(rapidjson::Value& obj, const std::string& key, rapidjson::Value value) {
    rapidjson::Value k(key.data(), static_cast<rapidjson::SizeType>(key.size()), alloc_);
    obj.AddMember(k, value, alloc_);
  }

  // Members a `<<` value contributes: a map, or a list of maps where earlier
  // maps win.
  void collect_merge(const YAML::Node& value, std::size_t depth, std::vector<rapidjson::Value>& sources) {
    if (value.IsMap()) {
      sources.push_back(convert(value, depth + 1));
      return;
    }
    if (value.IsSequence()) {
      for (const auto& item : value) {
        if (!item.IsMap()) fail(item, "map merge requires a map or a list of maps as the value");
        sources.push_back(convert(item, depth + 1));
      }
      return;
    }
    fail(value, "map merge requires a map or a list of maps as the value");
  }

  rapidjson::Value convert_map(const YAML::Node& node, std::size_t depth) {
    std::unordered_set<std::string> explicit_keys;
    for (const auto& entry : node) {
      if (is_merge_key(entry.first)) continue;
      if (!explicit_keys.insert(key_string(entry.first)).second)
        fail(entry.first, "key \"" + key_string(entry.first) + "\" already set in map");
    }
    rapidjson::Value obj(rapidjson::kObjectType);
    std::unordered_set<std::string> added;
    for (const auto& entry : node) {
      if (is_merge_key(entry.first)) {
        std::vector<rapidjson::Value> sources;
        collect_merge(entry.second, depth, sources);
        for (auto& source : sources) {
          for (auto& m : source.GetObject()) {
            std::string k(m.name.GetString(), m.name.GetStringLength());
            if (explicit_keys.count(k) != 0 || !added.insert(k).second) continue;
            add_member(obj, k, std::move(m.value));
          }
        }
        continue;
      }
      std::string k = key_string(entry.first);
      if (!added.insert(k).second) continue;  // only a merged copy can precede it, and explicit wins
      add_member(obj, k, convert(entry.second, depth + 1));
    }
    return obj;
  }

  rapidjson::Document::AllocatorType& alloc_;
  std::size_t values_ = 0;
};

}  // namespace

rapidjson::Value yaml_to_json(const YAML::Node& node, rapidjson::Document::AllocatorType& allocator) {
  Converter converter(allocator);
  return converter.convert(node, 0);
}

YamlScalarKind resolve_plain_scalar(const std::string& text) {
  switch (detail::yaml_resolve_plain(text).index()) {
    case 0: return YamlScalarKind::Null;
    case 1: return YamlScalarKind::Bool;
    case 2:
    case 3: return YamlScalarKind::Int;
    case 4: return YamlScalarKind::Float;
    default: return YamlScalarKind::String;
  }
}

}  // namespace gpupool::api
