// Reading Kubernetes manifests from files, directories and stdin the way
// `kubectl apply -f PATH -R` reads them, as JSON objects.
//
//  - A path is a file, a directory (walked recursively, like filepath.Walk:
//    each directory's entries in byte order of their names, descending into
//    subdirectories where they sort; only *.yaml, *.yml and *.json files;
//    symlinked directories are not followed) or "-" for stdin. A file named
//    explicitly is read whatever its extension.
//  - A file is split into documents at lines that start with "---" followed
//    by nothing, spaces or a comment (kubectl's YAML reader does the same).
//    Documents with nothing but blanks and comments are skipped and not
//    counted in the document index; a document that is `null` is skipped but
//    counted. A leading UTF-8 byte order mark is ignored.
//  - Content whose first non-blank character is '{' is a JSON stream (one or
//    more objects), as kubectl sniffs it.
//  - YAML is converted with yaml_to_json (YAML 1.1 resolution as go-yaml v2).
//  - An object whose kind is "List" or ends in "List" and that has an "items"
//    array is replaced by its items (recursively), as kubectl flattens lists.
//
// Errors never stop the reading of other documents or files.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

namespace gpupool::api {

struct Manifest {
  std::string file;                 // the path as found ("<stdin>" for "-")
  std::size_t document = 0;         // 0-based index of the document in the file
  std::size_t line = 0;             // 1-based line where the document's content starts
  std::optional<std::size_t> item;  // index in the List it was expanded from
  rapidjson::Document object;       // a JSON object

  // "file:line" for messages.
  std::string location() const { return file + ":" + std::to_string(line); }
  // Top-level string fields; "" when absent or not a string.
  std::string api_version() const;
  std::string kind() const;
  std::string name() const;        // metadata.name
  std::string namespace_() const;  // metadata.namespace
};

struct ManifestError {
  std::string file;
  std::size_t line = 0;  // 1-based; 0 when not known (a missing file)
  std::string message;   // "yaml: line 3, column 5: ..." / "document is not a mapping" / ...
  std::string str() const {
    return line == 0 ? file + ": " + message : file + ":" + std::to_string(line) + ": " + message;
  }
};

struct ManifestSet {
  std::vector<Manifest> objects;
  std::vector<ManifestError> errors;
};

// Reads every path in order; "-" reads stdin.
ManifestSet load_manifests(const std::vector<std::string>& paths);

// Parses `text` as the content of a file named `origin`, appending to `out`.
void load_manifests_from_string(std::string_view text, const std::string& origin, ManifestSet& out);
ManifestSet load_manifests_from_string(std::string_view text, const std::string& origin);

}  // namespace gpupool::api
