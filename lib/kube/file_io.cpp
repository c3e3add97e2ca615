#include "file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace gpupool::kube::detail {

namespace {
constexpr std::size_t kMaxFileSize = 8 * 1024 * 1024;
}

FileContents read_small_file(const std::string& path) {
  FileContents result;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    result.not_found = errno == ENOENT || errno == ENOTDIR;
    result.error = std::strerror(errno);
    return result;
  }
  char buf[16384];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      result.error = std::strerror(errno);
      ::close(fd);
      return result;
    }
    if (n == 0) break;
    result.data.append(buf, static_cast<std::size_t>(n));
    if (result.data.size() > kMaxFileSize) {
      result.error = "larger than " + std::to_string(kMaxFileSize) + " bytes";
      result.data.clear();
      ::close(fd);
      return result;
    }
  }
  ::close(fd);
  result.ok = true;
  return result;
}

std::string resolve_path(const std::string& base_dir, const std::string& path) {
  if (path.empty() || path.front() == '/') return path;
  return (std::filesystem::path(base_dir) / path).lexically_normal().string();
}

std::string directory_of(const std::string& file) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(file, ec);
  if (ec) abs = file;
  return abs.parent_path().lexically_normal().string();
}

std::string trim(std::string s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; };
  std::size_t end = s.size();
  while (end > 0 && space(s[end - 1])) --end;
  std::size_t begin = 0;
  while (begin < end && space(s[begin])) ++begin;
  return s.substr(begin, end - begin);
}

}  // namespace gpupool::kube::detail
