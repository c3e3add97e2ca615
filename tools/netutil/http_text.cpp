#include "gpupool/netutil/http_text.h"

#include <cstdio>

namespace gpupool::netutil {

const char* reason_phrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 101: return "Switching Protocols";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "Request Entity Too Large";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "Status";
  }
}

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (const char c : s) {
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
          out.append(escaped);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

std::string status_json(int code, std::string_view reason, std::string_view message, std::string_view details_json) {
  std::string out = R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":)";
  out.append(code < 400 ? R"("Success")" : R"("Failure")");
  out.append(R"(,"message":)");
  append_json_string(out, message);
  if (!reason.empty()) {
    out.append(R"(,"reason":)");
    append_json_string(out, reason);
  }
  if (!details_json.empty()) out.append(R"(,"details":)").append(details_json);
  out.append(R"(,"code":)").append(std::to_string(code)).append("}");
  return out;
}

}  // namespace gpupool::netutil
