#include "process_stats.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace gpupool::bench {

std::optional<ProcessStats> process_stats(pid_t pid) {
  const std::string dir = "/proc/" + std::to_string(pid);
  std::ifstream status(dir + "/status");
  if (!status) return std::nullopt;
  ProcessStats s;
  for (std::string line; std::getline(status, line);) {
    auto kib = [&](const char* key, double& out) {
      if (line.rfind(key, 0) == 0) out = std::stod(line.substr(std::string(key).size())) / 1024.0;
    };
    kib("VmRSS:", s.rss_mib);
    kib("VmHWM:", s.peak_rss_mib);
  }
  std::ifstream stat(dir + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  // Fields after the command name (which may hold spaces) in parentheses.
  const auto close = text.rfind(')');
  if (close != std::string::npos) {
    std::istringstream rest(text.substr(close + 2));
    std::string field;
    long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i) {
      if (i == 14) utime = std::stol(field);
      if (i == 15) stime = std::stol(field);
    }
    s.cpu_seconds = static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  return s;
}

}  // namespace gpupool::bench
