// Small text helpers shared by the catalog, planner and mig-parted readers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpupool::gpu::text {

std::string_view trim(std::string_view s);
std::string lower(std::string_view s);
std::string join(const std::vector<std::string>& parts, std::string_view separator);

// Strict decimal: digits only (no sign, no spaces); nullopt on overflow.
std::optional<int> parse_non_negative(std::string_view s);
// Strict "0x" + exactly `digits` hex digits (either case).
std::optional<std::uint32_t> parse_hex(std::string_view s, std::size_t digits);

// Reads a whole file; throws std::runtime_error naming it when unreadable.
std::string read_file(const std::string& path);

}  // namespace gpupool::gpu::text
