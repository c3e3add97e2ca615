#include "support/promtool.h"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <sstream>

#include "gpupool/testenv/process.h"

namespace gpupool::test {

std::optional<std::string> find_promtool() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/promtool";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

PromtoolCheck promtool_check_metrics(const std::string& promtool, const std::string& exposition) {
  const auto run = testenv::run_command(promtool, {"check", "metrics"}, exposition, std::chrono::minutes(1));
  return {run.status, run.out + run.err};
}

}  // namespace gpupool::test
