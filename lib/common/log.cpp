#include "gpupool/common/log.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace gpupool::log {

std::optional<Format> parse_format(std::string_view value) {
  if (value == "text") return Format::Text;
  if (value == "json") return Format::Json;
  return std::nullopt;
}

std::optional<int> parse_level(std::string_view value) {
  if (value == "trace") return spdlog::level::trace;
  if (value == "debug") return spdlog::level::debug;
  if (value == "info") return spdlog::level::info;
  if (value == "warn") return spdlog::level::warn;
  if (value == "error") return spdlog::level::err;
  return std::nullopt;
}

std::string json_escape(std::string_view in) {
  std::string out;
  out.reserve(in.size() + 8);
  for (char c : in) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

namespace {

// One JSON object per line: {"ts":"...","level":"info","logger":"...","msg":"..."}.
class JsonStderrSink final : public spdlog::sinks::base_sink<std::mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    using namespace std::chrono;
    auto since_epoch = msg.time.time_since_epoch();
    auto secs = duration_cast<seconds>(since_epoch);
    auto millis = duration_cast<milliseconds>(since_epoch - secs).count();
    std::time_t t = secs.count();
    std::tm tm{};
    gmtime_r(&t, &tm);
    char ts[128];
    std::snprintf(ts, sizeof ts, "%04d-%02d-%02dT%02d:%02d:%02d.%03lldZ", tm.tm_year + 1900, tm.tm_mon + 1,
                  tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<long long>(millis));
    auto level = spdlog::level::to_string_view(msg.level);
    std::string line = "{\"ts\":\"";
    line += ts;
    line += "\",\"level\":\"";
    line.append(level.data(), level.size());
    line += "\",\"logger\":\"";
    line += json_escape(std::string_view(msg.logger_name.data(), msg.logger_name.size()));
    line += "\",\"msg\":\"";
    line += json_escape(std::string_view(msg.payload.data(), msg.payload.size()));
    line += "\"}\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
  }
  void flush_() override { std::fflush(stderr); }
};

}  // namespace

void init(Format format, std::string_view level) {
  std::shared_ptr<spdlog::logger> logger;
  if (format == Format::Json) {
    logger = std::make_shared<spdlog::logger>("gpupool", std::make_shared<JsonStderrSink>());
  } else {
    logger = std::make_shared<spdlog::logger>("gpupool", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e%z %^%-5l%$ %v");
  }
  auto lvl = parse_level(level).value_or(spdlog::level::info);
  logger->set_level(static_cast<spdlog::level::level_enum>(lvl));
  logger->flush_on(spdlog::level::warn);
  spdlog::set_default_logger(std::move(logger));
}

}  // namespace gpupool::log
