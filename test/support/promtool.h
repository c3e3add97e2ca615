// `promtool check metrics` (Prometheus' own parser and linter, Debian package
// prometheus; tools/dev/setup.sh installs it) for tests that check an
// exposition.
#pragma once

#include <optional>
#include <string>

namespace gpupool::test {

// promtool's path on $PATH, or nullopt (unit tests skip then).
std::optional<std::string> find_promtool();

struct PromtoolCheck {
  int exit_code = -1;  // 0: clean
  std::string output;  // what promtool said, stdout and stderr
};

// Runs `promtool check metrics` with `exposition` on its standard input.
PromtoolCheck promtool_check_metrics(const std::string& promtool, const std::string& exposition);

}  // namespace gpupool::test
