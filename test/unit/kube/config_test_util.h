// Helpers for the client configuration tests: temporary directories, scoped
// environment variables, and a throwaway certificate and key.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpupool/kube/errors.h"

namespace gpupool::kube::testing {

// A self-signed EC certificate and its key, made for these tests only.
inline constexpr const char* kCertPem = R"(-----BEGIN CERTIFICATE-----
MIIBhDCCASugAwIBAgIUR5xjawdWGapEoo4I91+e5a5kSLAwCgYIKoZIzj0EAwIw
FzEVMBMGA1UEAwwMZ3B1cG9vbC10ZXN0MCAXDTI2MTEyMjIzMzc0MloYDzIxMjYx
MDI5MjMzNzQyWjAXMRUwEwYDVQQDDAxncHVwb29sLXRlc3QwWTATBgcqhkjOPQIB
BggqhkjOPQMBBwNCAAR5lp+kHUfBq8jCpCSGbiWTEbbS8UIAUmTqF/YuMAbtbLiI
Ioo6TO0ZVfjz9HEjlkkaJptzHnQx/+/Gp4I95fuLo1MwUTAdBgNVHQ4EFgQULWUl
/PCPjSMyw56A+Zs/3ZhLxY8wHwYDVR0jBBgwFoAULWUl/PCPjSMyw56A+Zs/3ZhL
xY8wDwYDVR0TAQH/BAUwAwEB/zAKBggqhkjOPQQDAgNHADBEAiBu8+OjucQAgk2l
27hy803MftUZM+HKMeLOCPhZgRcfLQIgHM2WASszosw7VKclQtWCnWPty1g/TsDj
nKq+m0KXGHw=
-----END CERTIFICATE-----
)";

inline constexpr const char* kKeyPem = R"(-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgwE1V1bEa/0AHxZ7V
sr139/rabbCAfiJH9F8KRsATEhyhRANCAAR5lp+kHUfBq8jCpCSGbiWTEbbS8UIA
UmTqF/YuMAbtbLiIIoo6TO0ZVfjz9HEjlkkaJptzHnQx/+/Gp4I95fuL
-----END PRIVATE KEY-----
)";

// A fresh directory, removed with everything in it at the end of the test.
class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/gpupool-config-test-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }

  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

  // Writes `name` (parent directories created) and returns its full path.
  std::string write(const std::string& name, const std::string& content, bool executable = false) const {
    const std::string full = *this / name;
    std::filesystem::create_directories(std::filesystem::path(full).parent_path());
    {
      std::ofstream out(full, std::ios::binary | std::ios::trunc);
      out << content;
    }
    if (executable) ::chmod(full.c_str(), 0755);
    return full;
  }

  std::string read(const std::string& name) const {
    std::ifstream in(*this / name, std::ios::binary);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
  }

 private:
  std::string path_;
};

// Sets (or, with std::nullopt, unsets) environment variables for a scope and
// restores the previous values afterwards.
class ScopedEnv {
 public:
  ScopedEnv() = default;
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    for (const auto& [name, old] : saved_) {
      if (old) {
        ::setenv(name.c_str(), old->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }

  ScopedEnv& set(const std::string& name, const std::optional<std::string>& value) {
    if (!saved_.count(name)) {
      const char* old = std::getenv(name.c_str());
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    if (value) {
      ::setenv(name.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name.c_str());
    }
    return *this;
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

// The message of the ConfigError `f` throws; fails the test if it throws
// nothing or something else.
inline std::string config_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected ConfigError, got another exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected ConfigError, nothing was thrown";
  return "";
}

}  // namespace gpupool::kube::testing
