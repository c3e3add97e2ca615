#include "support/json_log.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>

namespace gpupool::test {

namespace {

// "2026-11-23T01:05:59.123Z" -> ms since the epoch; 0 if it does not parse.
int64_t parse_ts(const std::string& ts) {
  std::tm tm{};
  int millis = 0;
  if (std::sscanf(ts.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                  &tm.tm_sec, &millis) != 7) {
    return 0;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&tm)) * 1000 + millis;
}

}  // namespace

std::vector<LogLine> read_json_log(const std::string& path) {
  std::vector<LogLine> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    rapidjson::Document d;
    d.Parse(line.c_str());
    bool ok = !d.HasParseError() && d.IsObject() && d.HasMember("msg") && d["msg"].IsString() && d.HasMember("ts") &&
              d["ts"].IsString() && d.HasMember("level") && d["level"].IsString();
    EXPECT_TRUE(ok) << path << ": not a JSON log line: " << line;
    if (!ok) continue;
    out.push_back({parse_ts(d["ts"].GetString()), d["level"].GetString(), d["msg"].GetString()});
  }
  return out;
}

LogLine first_with(const std::vector<LogLine>& lines, const std::string& needle) {
  for (const auto& l : lines) {
    if (l.msg.find(needle) != std::string::npos) return l;
  }
  return {};
}

bool any_with(const std::vector<LogLine>& lines, const std::string& needle) { return first_with(lines, needle).ts_ms != 0; }

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace gpupool::test
