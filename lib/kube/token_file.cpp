#include "gpupool/kube/token_file.h"

#include <spdlog/spdlog.h>

#include "file_io.h"
#include "gpupool/kube/errors.h"

namespace gpupool::kube {

namespace {

// The token, or a ConfigError naming the file (never the token).
std::string read_token(const std::string& path) {
  detail::FileContents file = detail::read_small_file(path);
  if (!file.ok) throw ConfigError("token file " + path + ": cannot read: " + file.error);
  std::string token = detail::trim(std::move(file.data));
  if (token.empty()) throw ConfigError("token file " + path + ": empty");
  return token;
}

}  // namespace

TokenFileCredentials::TokenFileCredentials(std::string path, TokenFileOptions options)
    : path_(std::move(path)), options_(std::move(options)) {
  options_.base.bearer_token.clear();
}

std::chrono::steady_clock::time_point TokenFileCredentials::now() const {
  return options_.now ? options_.now() : std::chrono::steady_clock::now();
}

Credentials TokenFileCredentials::get() {
  std::lock_guard lock(mu_);
  const auto t = now();
  if (!token_ || t - read_at_ >= options_.refresh_interval) {
    try {
      token_ = read_token(path_);
      read_at_ = t;
    } catch (const ConfigError& e) {
      if (!token_) throw;
      // Keep the last good token: the file may be in the middle of a rotation.
      // read_at_ is left alone so the next get() tries again.
      spdlog::warn("{}; using the previously read token", e.what());
    }
  }
  Credentials creds = options_.base;
  creds.bearer_token = *token_;
  return creds;
}

void TokenFileCredentials::invalidate() {
  std::lock_guard lock(mu_);
  token_.reset();
}

}  // namespace gpupool::kube
