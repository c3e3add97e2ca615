#include "gpupool/kube/errors.h"

#include <rapidjson/document.h>

#include <array>
#include <utility>

namespace gpupool::kube {

namespace {

constexpr std::array<std::pair<StatusReason, std::string_view>, 19> kReasons{{
    {StatusReason::Unknown, ""},
    {StatusReason::BadRequest, "BadRequest"},
    {StatusReason::Unauthorized, "Unauthorized"},
    {StatusReason::Forbidden, "Forbidden"},
    {StatusReason::NotFound, "NotFound"},
    {StatusReason::AlreadyExists, "AlreadyExists"},
    {StatusReason::Conflict, "Conflict"},
    {StatusReason::Gone, "Gone"},
    {StatusReason::Expired, "Expired"},
    {StatusReason::Invalid, "Invalid"},
    {StatusReason::ServerTimeout, "ServerTimeout"},
    {StatusReason::Timeout, "Timeout"},
    {StatusReason::TooManyRequests, "TooManyRequests"},
    {StatusReason::MethodNotAllowed, "MethodNotAllowed"},
    {StatusReason::NotAcceptable, "NotAcceptable"},
    {StatusReason::RequestEntityTooLarge, "RequestEntityTooLarge"},
    {StatusReason::UnsupportedMediaType, "UnsupportedMediaType"},
    {StatusReason::InternalError, "InternalError"},
    {StatusReason::ServiceUnavailable, "ServiceUnavailable"},
}};

// What apimachinery's errors.FromObject / NewGenericServerResponse assume
// when the body is not a Status.
StatusReason reason_for_code(int code) {
  switch (code) {
    case 400: return StatusReason::BadRequest;
    case 401: return StatusReason::Unauthorized;
    case 403: return StatusReason::Forbidden;
    case 404: return StatusReason::NotFound;
    case 405: return StatusReason::MethodNotAllowed;
    case 406: return StatusReason::NotAcceptable;
    case 409: return StatusReason::Conflict;
    case 410: return StatusReason::Gone;
    case 413: return StatusReason::RequestEntityTooLarge;
    case 415: return StatusReason::UnsupportedMediaType;
    case 422: return StatusReason::Invalid;
    case 429: return StatusReason::TooManyRequests;
    case 500: return StatusReason::InternalError;
    case 503: return StatusReason::ServiceUnavailable;
    case 504: return StatusReason::Timeout;
    default: return StatusReason::Unknown;
  }
}

std::string member_string(const rapidjson::Value& obj, const char* name) {
  if (!obj.IsObject()) return {};
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || !it->value.IsString()) return {};
  return {it->value.GetString(), it->value.GetStringLength()};
}

std::string compose(int code, StatusReason reason, const std::string& message, const std::vector<StatusCause>& causes) {
  std::string text = "API error " + std::to_string(code);
  if (reason != StatusReason::Unknown) text += " " + std::string(to_string(reason));
  if (!message.empty()) text += ": " + message;
  for (const auto& c : causes) {
    if (!c.field.empty() && message.find(c.field) == std::string::npos) text += "; " + c.field + ": " + c.message;
  }
  return text;
}

}  // namespace

std::string_view to_string(StatusReason reason) {
  for (const auto& [r, text] : kReasons) {
    if (r == reason) return text;
  }
  return "";
}

StatusReason parse_status_reason(std::string_view text) {
  for (const auto& [r, t] : kReasons) {
    if (!t.empty() && t == text) return r;
  }
  return StatusReason::Unknown;
}

ApiError::ApiError(int code, StatusReason reason, std::string message, std::vector<StatusCause> causes,
                   std::optional<int> retry_after_seconds)
    : std::runtime_error(compose(code, reason, message, causes)),
      code_(code),
      reason_(reason),
      message_(std::move(message)),
      causes_(std::move(causes)),
      retry_after_(retry_after_seconds) {}

ApiError decode_api_error(int http_code, std::string_view body, std::optional<int> retry_after_seconds) {
  rapidjson::Document doc;
  doc.Parse(body.data(), body.size());
  if (!doc.HasParseError() && doc.IsObject() && member_string(doc, "kind") == "Status") {
    int code = http_code;
    if (auto it = doc.FindMember("code"); it != doc.MemberEnd() && it->value.IsInt() && it->value.GetInt() > 0) {
      code = it->value.GetInt();
    }
    StatusReason reason = parse_status_reason(member_string(doc, "reason"));
    if (reason == StatusReason::Unknown) reason = reason_for_code(code);
    std::vector<StatusCause> causes;
    std::optional<int> retry_after = retry_after_seconds;
    if (auto details = doc.FindMember("details"); details != doc.MemberEnd() && details->value.IsObject()) {
      if (auto c = details->value.FindMember("causes"); c != details->value.MemberEnd() && c->value.IsArray()) {
        for (const auto& cause : c->value.GetArray()) {
          causes.push_back({member_string(cause, "reason"), member_string(cause, "message"), member_string(cause, "field")});
        }
      }
      if (auto ra = details->value.FindMember("retryAfterSeconds");
          !retry_after && ra != details->value.MemberEnd() && ra->value.IsInt()) {
        retry_after = ra->value.GetInt();
      }
    }
    return ApiError(code, reason, member_string(doc, "message"), std::move(causes), retry_after);
  }
  std::string snippet(body.substr(0, 256));
  std::string message = snippet.empty() ? "the server answered with HTTP status " + std::to_string(http_code)
                                        : "the server answered: " + snippet;
  return ApiError(http_code, reason_for_code(http_code), std::move(message), {}, retry_after_seconds);
}

}  // namespace gpupool::kube
