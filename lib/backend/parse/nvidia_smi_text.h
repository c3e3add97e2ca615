// Text helpers shared by the nvidia-smi parsers (private to
// lib/backend/parse). None throws; numbers are checked against the range the
// caller gives.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpupool::backend::nvsmi::text {

std::string_view trim(std::string_view s);
// Lines without their "\n" / "\r\n"; a final line without "\n" counts.
std::vector<std::string_view> lines(std::string_view s);
// Runs of non-blank characters.
std::vector<std::string_view> words(std::string_view s);
// Splits on `sep`, trimming each piece.
std::vector<std::string_view> split_trim(std::string_view s, char sep);
bool starts_with(std::string_view s, std::string_view prefix);
bool contains(std::string_view s, std::string_view part);

// A decimal integer in [min, max] (optional leading '-'/'+'); nullopt otherwise.
std::optional<std::int64_t> to_int(std::string_view s, std::int64_t min, std::int64_t max);
std::optional<int> to_int32(std::string_view s, int min = 0, int max = 1 << 30);
// A finite decimal number in [-1e15, 1e15].
std::optional<double> to_double(std::string_view s);
// Hexadecimal digits with an optional "0x" (at most 16 digits).
std::optional<std::uint64_t> to_hex(std::string_view s);

// nvidia-smi's ways of saying "no value": "", "N/A", "[N/A]", "Not Supported",
// any "[...]" text ("[Not Supported]", "[Requested functionality has been deprecated]").
bool is_absent(std::string_view s);
// "81559 MiB" -> "81559", "71.15 W" -> "71.15", "45 %" -> "45", "27 C" -> "27";
// a value without a unit is returned trimmed.
std::string_view strip_unit(std::string_view s);
// Removes ANSI escape sequences ("\x1b[4m").
std::string strip_ansi(std::string_view s);
// 'text', shortened to 80 characters, control characters as '?'.
std::string quote(std::string_view s);
std::string line_where(std::size_t line_number);

}  // namespace gpupool::backend::nvsmi::text
