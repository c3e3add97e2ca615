// Paths -> manifests: files, directories walked like kubectl -R, and stdin.
#include "gpupool/api/manifest.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <system_error>

namespace gpupool::api {
namespace {

namespace fs = std::filesystem;

std::string string_member(const rapidjson::Value& obj, const char* name) {
  if (!obj.IsObject()) return {};
  const auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || !it->value.IsString()) return {};
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

bool has_manifest_extension(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

void load_file(const std::string& path, ManifestSet& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::error_code ec;
    const bool exists = fs::exists(path, ec);
    out.errors.push_back(ManifestError{path, 0, exists ? "cannot open file" : "no such file or directory"});
    return;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    out.errors.push_back(ManifestError{path, 0, "cannot read file"});
    return;
  }
  load_manifests_from_string(ss.str(), path, out);
}

// filepath.Walk order: a directory's entries sorted by name, subdirectories
// entered where they sort.
void walk(const fs::path& dir, ManifestSet& out, int depth) {
  std::error_code ec;
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) entries.push_back(it->path());
  if (ec) {
    out.errors.push_back(ManifestError{dir.string(), 0, "cannot read directory: " + ec.message()});
    return;
  }
  std::sort(entries.begin(), entries.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename().string() < b.filename().string(); });
  for (const auto& entry : entries) {
    const fs::file_status link = fs::symlink_status(entry, ec);
    if (!ec && fs::is_directory(link)) {
      if (depth < 64) walk(entry, out, depth + 1);
      continue;
    }
    if (has_manifest_extension(entry) && !fs::is_directory(entry, ec)) load_file(entry.string(), out);
  }
}

}  // namespace

std::string Manifest::api_version() const { return string_member(object, "apiVersion"); }
std::string Manifest::kind() const { return string_member(object, "kind"); }

std::string Manifest::name() const {
  if (!object.IsObject()) return {};
  const auto meta = object.FindMember("metadata");
  return meta == object.MemberEnd() ? std::string() : string_member(meta->value, "name");
}

std::string Manifest::namespace_() const {
  if (!object.IsObject()) return {};
  const auto meta = object.FindMember("metadata");
  return meta == object.MemberEnd() ? std::string() : string_member(meta->value, "namespace");
}

ManifestSet load_manifests(const std::vector<std::string>& paths) {
  ManifestSet out;
  for (const auto& path : paths) {
    if (path == "-") {
      std::stringstream ss;
      ss << std::cin.rdbuf();
      load_manifests_from_string(ss.str(), "<stdin>", out);
      continue;
    }
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
      walk(path, out, 0);
    } else {
      load_file(path, out);
    }
  }
  return out;
}

}  // namespace gpupool::api
