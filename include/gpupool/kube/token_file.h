// A bearer token read from a file that something else rotates: the kubeconfig
// tokenFile field, and the projected service account token in a pod.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "gpupool/kube/config.h"

namespace gpupool::kube {

struct TokenFileOptions {
  // How long a token read from the file is used before the file is read again.
  // client-go uses a minute; kubelet rotates projected tokens well before expiry.
  std::chrono::steady_clock::duration refresh_interval = std::chrono::minutes(1);
  // The clock; tests inject one. Default: steady_clock::now.
  std::function<std::chrono::steady_clock::time_point()> now;
  // Client certificate and key presented alongside the token (a kubeconfig user
  // may have both). Its bearer_token is ignored.
  Credentials base;
};

// Reads the token from `path`, leading and trailing whitespace removed. The
// file is read on first use, again once refresh_interval has passed, and again
// on the first get() after invalidate(). When a periodic re-read fails the last
// good token stays in use (the file may be mid-rotation); after invalidate(), or
// when there never was a good token, get() throws ConfigError naming the file.
class TokenFileCredentials final : public CredentialSource {
 public:
  explicit TokenFileCredentials(std::string path, TokenFileOptions options = {});

  Credentials get() override;
  void invalidate() override;

  const std::string& path() const { return path_; }

 private:
  std::chrono::steady_clock::time_point now() const;

  std::string path_;
  TokenFileOptions options_;
  std::mutex mu_;
  std::optional<std::string> token_;  // guarded by mu_
  std::chrono::steady_clock::time_point read_at_{};  // guarded by mu_
};

}  // namespace gpupool::kube
