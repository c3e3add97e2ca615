// Reading the nvidia-smi fixtures of test/data/nvidia-smi (and, where
// present, the shared real captures in ../shared/testdata/nvidia-smi).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "gpupool/backend/nvidia_smi_parse.h"

namespace gpupool::backend::nvsmi::testing {

inline std::string fixture_path(const std::string& name) {
  return std::string(GPUPOOL_SOURCE_DIR) + "/test/data/nvidia-smi/" + name;
}

// The file's bytes; fails the test (and returns "") when it cannot be read.
inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "cannot read " << path;
    return "";
  }
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string fixture(const std::string& name) { return read_file(fixture_path(name)); }

// ../shared/testdata/nvidia-smi/<name> (or under $GPUPOOL_SHARED_TESTDATA);
// "" when that folder or file is absent.
inline std::string shared_path(const std::string& name) {
  const char* env = std::getenv("GPUPOOL_SHARED_TESTDATA");
  const std::string root = env != nullptr && *env != '\0' ? std::string(env) : std::string(GPUPOOL_SOURCE_DIR) + "/../shared/testdata";
  const std::string path = root + "/nvidia-smi/" + name;
  return std::ifstream(path).good() ? path : "";
}

// The value of an ok result; fails the test with the error otherwise.
template <class T>
T ok_or_fail(const ParseResult<T>& r) {
  if (!r.ok()) {
    ADD_FAILURE() << "parse error: " << r.error().to_string();
    return T{};
  }
  return r.value();
}

}  // namespace gpupool::backend::nvsmi::testing
