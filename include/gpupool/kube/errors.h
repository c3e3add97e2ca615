// Errors raised by the Kubernetes client. Callers branch on these types and
// their predicates, never on message text.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gpupool::kube {

// The reasons of metav1.Status the client distinguishes (StatusReason in apimachinery).
enum class StatusReason {
  Unknown,
  BadRequest,
  Unauthorized,
  Forbidden,
  NotFound,
  AlreadyExists,
  Conflict,
  Gone,
  Expired,
  Invalid,
  ServerTimeout,
  Timeout,
  TooManyRequests,
  MethodNotAllowed,
  NotAcceptable,
  RequestEntityTooLarge,
  UnsupportedMediaType,
  InternalError,
  ServiceUnavailable,
};

std::string_view to_string(StatusReason reason);
StatusReason parse_status_reason(std::string_view text);

// One entry of Status.details.causes: which field was wrong and why.
struct StatusCause {
  std::string type;     // e.g. "FieldValueInvalid"
  std::string message;  // e.g. "Invalid value: -1: must be greater than or equal to 0"
  std::string field;    // e.g. "spec.replicas"
};

// The API server answered with an error status (4xx/5xx, or an ERROR watch event).
class ApiError : public std::runtime_error {
 public:
  ApiError(int code, StatusReason reason, std::string message, std::vector<StatusCause> causes = {},
           std::optional<int> retry_after_seconds = std::nullopt);

  int code() const { return code_; }
  StatusReason reason() const { return reason_; }
  const std::string& status_message() const { return message_; }
  const std::vector<StatusCause>& causes() const { return causes_; }
  // From Retry-After or Status.details.retryAfterSeconds, when the server sent one.
  std::optional<int> retry_after_seconds() const { return retry_after_; }

  bool is_not_found() const { return reason_ == StatusReason::NotFound || (code_ == 404 && reason_ == StatusReason::Unknown); }
  bool is_already_exists() const { return reason_ == StatusReason::AlreadyExists; }
  bool is_conflict() const { return code_ == 409 && reason_ != StatusReason::AlreadyExists; }
  bool is_invalid() const { return reason_ == StatusReason::Invalid; }
  bool is_forbidden() const { return code_ == 403; }
  bool is_unauthorized() const { return code_ == 401; }
  // 410: a watch or list resourceVersion (or continue token) is too old; relist.
  bool is_gone() const { return code_ == 410; }
  bool is_too_many_requests() const { return code_ == 429; }
  bool is_server_error() const { return code_ >= 500; }

 private:
  int code_;
  StatusReason reason_;
  std::string message_;
  std::vector<StatusCause> causes_;
  std::optional<int> retry_after_;
};

// Builds an ApiError from an HTTP status and body. The body is decoded as a
// metav1.Status when it is one; otherwise the reason is derived from the code
// and the message quotes the start of the body.
ApiError decode_api_error(int http_code, std::string_view body, std::optional<int> retry_after_seconds = std::nullopt);

// The request never got an HTTP answer: connection refused, TLS failure, timeout.
class TransportError : public std::runtime_error {
 public:
  enum class Kind { Connect, Tls, Timeout, Aborted, Other };
  TransportError(Kind kind, std::string message) : std::runtime_error(std::move(message)), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

// A kubeconfig, in-cluster configuration or credential plugin could not be used.
// The message names the file (or variable) and the field.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A response or stream could not be decoded (malformed JSON, unexpected shape).
class DecodeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gpupool::kube
