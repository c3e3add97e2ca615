// Fixture access for the AMD backend tests: the project's own outputs under
// test/data/amd, and the real tool outputs of ../shared/testdata/amd when
// that folder exists (tests using them skip otherwise).
#pragma once

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace gpupool::backend::amd_test {

inline std::filesystem::path fixture_path(const std::string& name) {
  return std::filesystem::path(GPUPOOL_SOURCE_DIR) / "test" / "data" / "amd" / name;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) ADD_FAILURE() << "cannot read " << path;
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string fixture(const std::string& name) { return read_file(fixture_path(name)); }

// A real output from ../shared/testdata/amd, or nullopt when that folder is absent.
inline std::optional<std::string> shared_sample(const std::string& name) {
  const auto path = std::filesystem::path(GPUPOOL_SOURCE_DIR) / ".." / "shared" / "testdata" / "amd" / name;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  return read_file(path);
}

}  // namespace gpupool::backend::amd_test
