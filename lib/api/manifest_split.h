// Private to lib/api: cutting a manifest file into YAML documents.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace gpupool::api::detail {

struct ManifestChunk {
  std::string_view text;
  std::size_t first_line = 1;  // 1-based line of text's first line in the file
  bool blank = true;           // only whitespace and comments
};

// Splits at lines "---" (optionally followed by blanks or a comment), as
// k8s.io/apimachinery's YAMLReader does.
std::vector<ManifestChunk> manifest_split_documents(std::string_view text);

}  // namespace gpupool::api::detail
