// Logging for every gpupool executable: spdlog, human-readable by default,
// one JSON object per line with --log-format=json for log pipelines.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gpupool::log {

enum class Format { Text, Json };

// Parses "text" or "json"; std::nullopt for anything else.
std::optional<Format> parse_format(std::string_view value);

// Parses "trace", "debug", "info", "warn", "error"; std::nullopt otherwise.
std::optional<int> parse_level(std::string_view value);

// Replaces the default logger with one writing to stderr in the given format.
// Safe to call more than once (the last call wins).
void init(Format format, std::string_view level = "info");

// Escapes a string for inclusion in a JSON string literal (without quotes).
std::string json_escape(std::string_view in);

}  // namespace gpupool::log
