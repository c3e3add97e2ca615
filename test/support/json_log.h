// Reading the JSON logs (--log-format=json) of processes a test started.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gpupool::test {

struct LogLine {
  int64_t ts_ms = 0;  // "ts" as milliseconds since the epoch
  std::string level;
  std::string msg;
};

// Every line of the file; a line that is not a JSON log object fails the test.
std::vector<LogLine> read_json_log(const std::string& path);

// The first line whose message contains `needle`, or nullptr-like (ts_ms 0).
LogLine first_with(const std::vector<LogLine>& lines, const std::string& needle);
bool any_with(const std::vector<LogLine>& lines, const std::string& needle);

// Milliseconds since the epoch now (same clock as the logs' "ts").
int64_t wall_ms();

}  // namespace gpupool::test
