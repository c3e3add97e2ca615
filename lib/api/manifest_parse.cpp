// One file's text -> manifests: YAML documents or a JSON stream, Lists expanded.
#include <sstream>
#include <string>
#include <unordered_set>
#include <utility>

#include <rapidjson/error/en.h>

#include "gpupool/api/manifest.h"
#include "gpupool/api/yaml_json.h"
#include "manifest_split.h"

namespace gpupool::api {
namespace {

std::size_t line_at(std::string_view text, std::size_t offset) {
  std::size_t line = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i)
    if (text[i] == '\n') ++line;
  return line;
}

// A duplicate key anywhere in a JSON value, as "duplicate field \"a.b\"", or
// nesting deeper than YAML input may have (later steps recurse).
std::string find_duplicate_key(const rapidjson::Value& v, const std::string& path, std::size_t depth = 0) {
  if (depth > kMaxYamlDepth) return "nested deeper than " + std::to_string(kMaxYamlDepth) + " levels";
  if (v.IsObject()) {
    std::unordered_set<std::string_view> seen;
    for (const auto& m : v.GetObject()) {
      const std::string_view name(m.name.GetString(), m.name.GetStringLength());
      const std::string child = path.empty() ? std::string(name) : path + "." + std::string(name);
      if (!seen.insert(name).second) return "duplicate field \"" + child + "\"";
      if (auto d = find_duplicate_key(m.value, child, depth + 1); !d.empty()) return d;
    }
  } else if (v.IsArray()) {
    for (rapidjson::SizeType i = 0; i < v.Size(); ++i)
      if (auto d = find_duplicate_key(v[i], path + "[" + std::to_string(i) + "]", depth + 1); !d.empty()) return d;
  }
  return {};
}

bool is_list(const rapidjson::Value& obj) {
  const auto kind = obj.FindMember("kind");
  if (kind == obj.MemberEnd() || !kind->value.IsString()) return false;
  const std::string_view k(kind->value.GetString(), kind->value.GetStringLength());
  if (k.size() < 4 || k.substr(k.size() - 4) != "List") return false;
  const auto items = obj.FindMember("items");
  return items != obj.MemberEnd() && items->value.IsArray();
}

class FileParser {
 public:
  FileParser(std::string_view text, const std::string& origin, ManifestSet& out)
      : text_(text), origin_(origin), out_(out) {}

  void parse() {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") text_.remove_prefix(3);
    const auto first = text_.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && text_[first] == '{') {
      parse_json_stream();
      return;
    }
    std::size_t index = 0;
    for (const auto& chunk : detail::manifest_split_documents(text_)) {
      if (chunk.blank) continue;
      parse_yaml_document(chunk, index++);
    }
  }

 private:
  void error(std::size_t line, std::string message) {
    out_.errors.push_back(ManifestError{origin_, line, std::move(message)});
  }

  void parse_yaml_document(const detail::ManifestChunk& chunk, std::size_t index) {
    const std::size_t offset = chunk.first_line - 1;
    try {
      const YAML::Node root = YAML::Load(std::string(chunk.text));
      if (root.IsNull() || !root.IsDefined()) return;
      const std::size_t line = root.Mark().line >= 0 ? offset + static_cast<std::size_t>(root.Mark().line) + 1
                                                     : chunk.first_line;
      if (!root.IsMap()) {
        error(line, "document is not a mapping (a Kubernetes object must be a YAML map)");
        return;
      }
      rapidjson::Document doc;
      rapidjson::Value v = yaml_to_json(root, doc.GetAllocator());
      static_cast<rapidjson::Value&>(doc).Swap(v);
      add(std::move(doc), index, line);
    } catch (const YAML::Exception& e) {
      // yaml-cpp may report an error found at the end of the input on the line
      // after the document (the separator's); keep it inside the document.
      std::size_t last_line = chunk.first_line;
      for (std::size_t i = 0; i + 1 < chunk.text.size(); ++i)
        if (chunk.text[i] == '\n') ++last_line;
      std::size_t line = e.mark.line >= 0 ? offset + static_cast<std::size_t>(e.mark.line) + 1 : 0;
      std::string where;
      if (line > last_line) {
        line = last_line;
        where = "line " + std::to_string(line) + " (end of document): ";
      } else if (line > 0) {
        where = "line " + std::to_string(line) + ", column " + std::to_string(e.mark.column + 1) + ": ";
      }
      error(line == 0 ? chunk.first_line : line, "yaml: " + where + e.msg);
    } catch (const YamlJsonError& e) {
      // yaml_to_json counts lines within the document.
      const std::size_t line = e.line() > 0 ? offset + static_cast<std::size_t>(e.line()) : chunk.first_line;
      std::string message = e.what();
      if (e.line() > 0) {
        const auto colon = message.find(": ");
        message = "line " + std::to_string(line) + ", column " + std::to_string(e.column()) +
                  (colon == std::string::npos ? "" : message.substr(colon));
      }
      error(line, "yaml: " + message);
    } catch (const std::exception& e) {
      error(chunk.first_line, std::string("cannot read document: ") + e.what());
    }
  }

  void parse_json_stream() {
    const std::string copy(text_);
    std::size_t pos = 0;
    std::size_t index = 0;
    while (true) {
      pos = copy.find_first_not_of(" \t\r\n", pos);
      if (pos == std::string::npos) return;
      rapidjson::Document doc;
      rapidjson::StringStream stream(copy.c_str() + pos);
      doc.ParseStream<rapidjson::kParseStopWhenDoneFlag | rapidjson::kParseIterativeFlag>(stream);
      const std::size_t line = line_at(copy, pos);
      if (doc.HasParseError()) {
        const std::size_t at = pos + doc.GetErrorOffset();
        error(line_at(copy, at), "json: " + std::string(rapidjson::GetParseError_En(doc.GetParseError())) +
                                     " (at byte " + std::to_string(at) + ")");
        return;  // the rest of the stream cannot be found reliably
      }
      pos += stream.Tell();
      if (!doc.IsObject()) {
        if (!doc.IsNull()) error(line, "document is not a JSON object");
      } else if (auto dup = find_duplicate_key(doc, ""); !dup.empty()) {
        error(line, "json: " + dup);
      } else {
        add(std::move(doc), index, line);
      }
      ++index;
    }
  }

  void add(rapidjson::Document doc, std::size_t index, std::size_t line) {
    if (!is_list(doc)) {
      out_.objects.push_back(Manifest{origin_, index, line, std::nullopt, std::move(doc)});
      return;
    }
    expand(doc, index, line, std::nullopt, 0);
  }

  void expand(const rapidjson::Value& list, std::size_t index, std::size_t line, std::optional<std::size_t> top,
              std::size_t depth) {
    const rapidjson::Value& items = list["items"];
    for (rapidjson::SizeType i = 0; i < items.Size(); ++i) {
      const std::size_t item = top.value_or(i);
      const rapidjson::Value& v = items[i];
      if (!v.IsObject()) {
        error(line, "items[" + std::to_string(i) + "] of a " + std::string(list["kind"].GetString()) +
                        " is not an object");
        continue;
      }
      if (is_list(v) && depth < 16) {
        expand(v, index, line, item, depth + 1);
        continue;
      }
      rapidjson::Document doc;
      doc.CopyFrom(v, doc.GetAllocator());
      out_.objects.push_back(Manifest{origin_, index, line, item, std::move(doc)});
    }
  }

  std::string_view text_;
  const std::string& origin_;
  ManifestSet& out_;
};

}  // namespace

void load_manifests_from_string(std::string_view text, const std::string& origin, ManifestSet& out) {
  FileParser(text, origin, out).parse();
}

ManifestSet load_manifests_from_string(std::string_view text, const std::string& origin) {
  ManifestSet out;
  load_manifests_from_string(text, origin, out);
  return out;
}

}  // namespace gpupool::api
