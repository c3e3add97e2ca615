// Running promtool on files a test writes (check rules, test rules, check
// service-discovery): a temporary directory that goes with the test.
// Header-only: test/CMakeLists.txt compiles only *_test.cpp files.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "gpupool/testenv/process.h"
#include "support/promtool.h"

namespace gpupool::monitoring::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "gpupool-monitoring-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `text` to `name` in the directory; returns its path.
  std::string write(const std::string& name, const std::string& text) const {
    const auto p = path_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

struct PromtoolRun {
  int exit_code = -1;
  std::string output;  // stdout and stderr
  std::string out;     // stdout alone
};

inline PromtoolRun run_promtool(const std::string& promtool, const std::vector<std::string>& args) {
  const auto run = testenv::run_command(promtool, args, "", std::chrono::minutes(1));
  return {run.status, run.out + run.err, run.out};
}

}  // namespace gpupool::monitoring::testing

// Skips the test when promtool is not installed (tools/dev/setup.sh installs it).
#define GPUPOOL_REQUIRE_PROMTOOL(var)                                       \
  const auto var##_found = gpupool::test::find_promtool();                  \
  if (!var##_found) GTEST_SKIP() << "promtool not on $PATH";                \
  const std::string var = *var##_found
