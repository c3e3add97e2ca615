// Small file helpers for the configuration loaders (private to lib/kube).
#pragma once

#include <string>

namespace gpupool::kube::detail {

// A whole small file, or why it could not be read.
struct FileContents {
  bool ok = false;
  bool not_found = false;  // ENOENT: the file (or a directory on its path) does not exist
  std::string data;
  std::string error;  // strerror text, or "larger than N bytes"
};

// Reads at most a few MiB; larger files are an error (a config file never is).
FileContents read_small_file(const std::string& path);

// `path` made absolute against `base_dir` when relative; empty stays empty.
std::string resolve_path(const std::string& base_dir, const std::string& path);

// The absolute directory containing `file`.
std::string directory_of(const std::string& file);

// Whitespace removed from both ends.
std::string trim(std::string s);

}  // namespace gpupool::kube::detail
