// Small file and text helpers for the control-plane launcher.
#pragma once

#include <string>

namespace gpupool::testenv::detail {

// Whole file; throws std::runtime_error naming the path when unreadable.
std::string read_file(const std::string& path);
// Writes atomically (temp file + rename) with the given mode; throws on failure.
void write_file(const std::string& path, const std::string& content, unsigned mode = 0644);
bool file_exists(const std::string& path);
// The last `lines` lines of a file ("" when it does not exist).
std::string tail_file(const std::string& path, int lines);
// 32 random lowercase hex characters from the kernel's CSPRNG.
std::string random_token();
std::string base64(const std::string& data);

}  // namespace gpupool::testenv::detail
