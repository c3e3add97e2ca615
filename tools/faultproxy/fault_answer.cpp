#include "fault_answer.h"

#include <vector>

#include "gpupool/netutil/http_text.h"

namespace gpupool::faultproxy {
namespace {

constexpr std::string_view kCause = "injected by the fault proxy";

// The resource ("configmaps", "widgets.test.gpupool.io") and name a kube API
// path names, as far as it names them.
struct PathNames {
  std::string group;     // empty: the core group
  std::string resource;  // plural
  std::string name;
};

PathNames names_in(std::string_view path) {
  std::vector<std::string_view> parts;
  while (!path.empty()) {
    const auto slash = path.find('/');
    if (slash != 0) parts.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  // /api/v1/... or /apis/GROUP/VERSION/...
  PathNames out;
  std::size_t i = 0;
  if (parts.size() >= 2 && parts[0] == "api") {
    i = 2;
  } else if (parts.size() >= 3 && parts[0] == "apis") {
    out.group = std::string(parts[1]);
    i = 3;
  } else {
    return out;
  }
  if (parts.size() >= i + 3 && parts[i] == "namespaces") i += 2;  // namespaced (not the namespace itself)
  if (i < parts.size()) out.resource = std::string(parts[i]);
  if (i + 1 < parts.size()) out.name = std::string(parts[i + 1]);
  return out;
}

std::string details_json(const PathNames& names, int retry_after_seconds) {
  std::string out = "{";
  auto add = [&](std::string_view key, const std::string& raw) {
    if (out.size() > 1) out.push_back(',');
    netutil::append_json_string(out, key);
    out.append(":").append(raw);
  };
  auto quoted = [](std::string_view s) {
    std::string q;
    netutil::append_json_string(q, s);
    return q;
  };
  if (!names.name.empty()) add("name", quoted(names.name));
  if (!names.group.empty()) add("group", quoted(names.group));
  if (!names.resource.empty()) add("kind", quoted(names.resource));
  if (retry_after_seconds > 0) add("retryAfterSeconds", std::to_string(retry_after_seconds));
  out.append("}");
  return out == "{}" ? "" : out;
}

std::string named(const PathNames& names) {
  std::string out = names.resource.empty() ? "the object" : names.resource;
  if (!names.resource.empty() && !names.group.empty()) out.append(".").append(names.group);
  if (!names.name.empty()) out.append(" \"").append(names.name).append("\"");
  return out;
}

std::string response(int status, std::string_view marker, const std::string& body, int retry_after,
                     bool head_request, bool keep_alive) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + netutil::reason_phrase(status) + "\r\n";
  out.append("Cache-Control: no-cache, private\r\nContent-Type: application/json\r\n");
  out.append("X-Fault-Proxy: ").append(marker).append("\r\n");
  if (retry_after > 0) out.append("Retry-After: ").append(std::to_string(retry_after)).append("\r\n");
  out.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  if (!keep_alive) out.append("Connection: close\r\n");
  out.append("\r\n");
  if (!head_request) out.append(body);
  return out;
}

}  // namespace

std::string injected_response(const Fault& fault, std::string_view method, std::string_view path, bool keep_alive) {
  const PathNames names = names_in(path);
  const int status = fault.status;
  const int retry_after = fault.effective_retry_after();
  std::string reason;
  std::string message;
  switch (status) {
    case 400: reason = "BadRequest"; message = "the server rejected our request for an unknown reason"; break;
    case 401: reason = "Unauthorized"; message = "Unauthorized"; break;
    case 403: reason = "Forbidden"; message = named(names) + " is forbidden: " + std::string(kCause); break;
    case 404: reason = "NotFound"; message = named(names) + " not found"; break;
    case 409:
      reason = "Conflict";
      message = "Operation cannot be fulfilled on " + named(names) +
                ": the object has been modified; please apply your changes to the latest version and try again";
      break;
    case 410: reason = "Expired"; message = "too old resource version"; break;
    case 422: reason = "Invalid"; message = named(names) + " is invalid: " + std::string(kCause); break;
    case 429: reason = "TooManyRequests"; message = "Too many requests, please try again later."; break;
    case 500: reason = "InternalError"; message = "Internal error occurred: " + std::string(kCause); break;
    case 503: reason = "ServiceUnavailable"; message = "the server is currently unable to handle the request"; break;
    case 504: reason = "Timeout"; message = "the server was unable to return a response in the time allotted"; break;
    default: message = netutil::reason_phrase(status); break;
  }
  const std::string body = netutil::status_json(status, reason, message, details_json(names, retry_after));
  return response(status, "injected", body, retry_after, method == "HEAD", keep_alive);
}

std::string proxy_error_response(int status, std::string_view reason, std::string_view message) {
  return response(status, "error", netutil::status_json(status, reason, message), 0, false, false);
}

}  // namespace gpupool::faultproxy
